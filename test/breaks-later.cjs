// Preloaded (node --require) by a test of Ctrl-Break: once the file IDV_TEST_TRIGGER names exists (the test makes
// it when the run is at work), the process hears SIGBREAK, as a Windows console delivers it (Linux has no such
// signal: it is emitted here).
require('./trigger.cjs').onTrigger(() => process.emit('SIGBREAK', 'SIGBREAK'));
