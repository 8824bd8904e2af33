// Preloaded (node --require) by a test of the safety net: every file opened for reading yields nothing and
// never ends, and holds no handle, so the event loop empties while a run is unfinished. A regular file is read
// with fs.read (src/system/open-file.ts FileBlocks): its reads never come back; other files through streams that never end.
const fs = require('node:fs');
const { Readable } = require('node:stream');
fs.read = () => undefined;
fs.createReadStream = () => new Readable({ read() {} });
