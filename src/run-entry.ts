// What src/cli.cts needs of the program, from one module. The build bundles it, with everything it imports,
// into dist/program.cjs (scripts/bundle.mjs), which cli.cts require()s: one file read and compiled instead of
// some sixty ES modules resolved one by one, which cost a short run more than its work.
export { runCli, fail } from './main.js';
export { Secrets } from './system/secrets.js';
export { removeTempFilesNow } from './system/temp-files.js';
export { Terminal } from './system/terminal.js';
