// Preloaded (node --require) by a test of the last net: 300 ms after start, an error nobody catches, whose
// message repeats the key in use (as a library might, quoting a request). idv must print it masked, in one
// line, exit 1, and leave no temporary file.
setTimeout(() => {
  throw new Error(`boom: Authorization: Bearer ${process.env.IDV_API_KEY}\n    at somewhere (lib.js:1:1)`);
}, Number(process.env.THROW_AFTER_MS || 300));
