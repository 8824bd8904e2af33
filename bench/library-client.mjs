// `npm run bench`'s library line: a Node program validating a list with the library, as a user would write it.
// The list's lines → validateEmails (batch 100, concurrency 4, no cache, as the CLI's throughput run) → CSV on
// standard output, a line per result in input order.
// Usage: IDV_BASE_URL=http://127.0.0.1:PORT IDV_API_KEY=... node bench/library-client.mjs FILE
import { readFileSync, writeSync } from 'node:fs';
import { validateEmails } from '../dist/index.js';

const lines = readFileSync(process.argv[2], 'utf8').split('\n');
if (lines[lines.length - 1] === '') lines.pop();
let out = 'email,status\n';
for await (const r of validateEmails(lines, { cache: false, batchSize: 100, concurrency: 4 })) {
  out += `${r.item},${r.status}\n`;
  if (out.length >= 65536) {
    writeSync(1, out);
    out = '';
  }
}
writeSync(1, out);
