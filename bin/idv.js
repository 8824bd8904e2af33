#!/usr/bin/env node
// CommonJS (see bin/package.json): the start-up path stays off Node's ES module loader (src/cli.cts).
// Found from this file's real path: npm's global bin is a symlink to it, and with
// NODE_OPTIONS=--preserve-symlinks-main `__filename` is the link's path, whose ../dist is not ours.
require(require('node:path').join(require('node:fs').realpathSync(__filename), '..', '..', 'dist', 'cli.cjs'));
