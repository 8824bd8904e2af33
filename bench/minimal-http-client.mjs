// The yardstick of `npm run bench`'s throughput and start-up lines: the fastest client a user
// could write by hand. node:http with a keep-alive agent, batches of 100, 4 requests in flight, CSV on
// stdout. No checks, no retries, no dedup, no cache, no ordering beyond "each batch as it is answered".
// Usage: BASE=http://127.0.0.1:PORT KEY=... node bench/minimal-http-client.mjs FILE
import http from 'node:http';
import { readFileSync } from 'node:fs';

const { BASE, KEY } = process.env;
const base = new URL(BASE);
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
const lines = readFileSync(process.argv[2], 'utf8').split('\n').filter((l) => l !== '');
const batches = [];
for (let i = 0; i < lines.length; i += 100) batches.push(lines.slice(i, i + 100));

function post(body) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        path: '/emails/validate',
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.setEncoding('utf8');
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve(text));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

let next = 0;
async function worker() {
  while (next < batches.length) {
    const batch = batches[next++];
    const { emails } = JSON.parse(await post(JSON.stringify({ emails: batch })));
    let out = '';
    for (const e of batch) out += `${e},${emails[e]?.status}\n`;
    if (!process.stdout.write(out)) await new Promise((r) => process.stdout.once('drain', r));
  }
}

process.stdout.write('email,status\n');
await Promise.all([worker(), worker(), worker(), worker()]);
agent.destroy();
