// Preloaded (node --require) by a test: says on stderr, as the process exits, whether the run made process.stdin.
const made = Object.getOwnPropertyDescriptor(process, 'stdin');
let asked = false;
Object.defineProperty(process, 'stdin', {
  configurable: true,
  get() {
    asked = true;
    return made.get.call(process);
  },
});
process.on('exit', () => require('node:fs').writeSync(2, `stdin made: ${asked}\n`));
