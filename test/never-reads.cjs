// Preloaded (node --require) by a test of the safety net: every file opened for reading yields nothing and
// never ends, and holds no handle, so the event loop empties while a run is unfinished.
const fs = require('node:fs');
const { Readable } = require('node:stream');
fs.createReadStream = () => new Readable({ read() {} });
