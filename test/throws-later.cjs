// Preloaded (node --require) by a test of the last net: once the file IDV_TEST_TRIGGER names exists (the test
// makes it when the run is at work), an error nobody catches, whose message repeats the key in use (as a library
// might, quoting a request). idv must print it masked, in one line, exit 1, and leave no temporary file.
require('./trigger.cjs').onTrigger(() => {
  throw new Error(`boom: Authorization: Bearer ${process.env.IDV_API_KEY}\n    at somewhere (lib.js:1:1)`);
});
