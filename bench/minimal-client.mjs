// The simplest client the benchmark compares idv with: read the lines, batches of 100,
// 4 requests in flight with global fetch, `email,status` CSV on stdout. No checks, no retries,
// no dedup, no cache, no ordering guarantees beyond "one batch after another as they finish".
// Usage: BASE=http://127.0.0.1:PORT KEY=... node bench/minimal-client.mjs FILE
import { readFileSync } from 'node:fs';

const { BASE, KEY } = process.env;
const lines = readFileSync(process.argv[2], 'utf8').split('\n').filter((l) => l !== '');
const batches = [];
for (let i = 0; i < lines.length; i += 100) batches.push(lines.slice(i, i + 100));

let next = 0;
async function worker() {
  while (next < batches.length) {
    const batch = batches[next++];
    const res = await fetch(`${BASE}/emails/validate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ emails: batch }),
    });
    const { emails } = await res.json();
    let out = '';
    for (const e of batch) out += `${e},${emails[e]?.status}\n`;
    if (!process.stdout.write(out)) await new Promise((r) => process.stdout.once('drain', r));
  }
}

process.stdout.write('email,status\n');
await Promise.all([worker(), worker(), worker(), worker()]);
