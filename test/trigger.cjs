// For a preloaded test helper: run `then` once the file IDV_TEST_TRIGGER names exists. The test makes the file at
// the moment of its choosing (a request in flight), so the event comes after what it must follow, on a machine
// of any speed. Looked for every 10 ms; the look keeps no process alive.
const { existsSync } = require('node:fs');

exports.onTrigger = (then) => {
  const path = process.env.IDV_TEST_TRIGGER;
  if (!path) throw new Error('IDV_TEST_TRIGGER names no file');
  const look = setInterval(() => {
    if (!existsSync(path)) return;
    clearInterval(look);
    then();
  }, 10);
  look.unref();
};
