#!/usr/bin/env node
// CommonJS (see bin/package.json): the start-up path stays off Node's ES module loader (src/cli.cts).
require('../dist/cli.cjs');
