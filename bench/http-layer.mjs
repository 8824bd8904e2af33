// One HTTP layer alone, for `npm run bench`'s "http layer" lines: N POSTs of 100 addresses, 4 in flight,
// each answer read whole and parsed, nothing else. Usage:
//   BASE=http://127.0.0.1:PORT KEY=... node bench/http-layer.mjs node-http|undici-pool|fetch N
// It is how idv's choice of HTTP layer was made (src/api/transport.ts) and how to check it again.
import http from 'node:http';

const [layer, nArg] = process.argv.slice(2);
const { BASE, KEY } = process.env;
const n = Number(nArg);
const base = new URL(BASE);
const path = '/emails/validate';
const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

let post;
if (layer === 'node-http') {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  post = (body) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        { host: base.hostname, port: base.port, path, method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
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
} else if (layer === 'undici-pool') {
  const { Pool } = await import('undici');
  const pool = new Pool(base.origin, { connections: 4 });
  post = async (body) => (await pool.request({ path, method: 'POST', headers, body })).body.text();
} else if (layer === 'fetch') {
  post = async (body) => (await fetch(base.origin + path, { method: 'POST', headers, body })).text();
} else {
  console.error('usage: node bench/http-layer.mjs node-http|undici-pool|fetch N');
  process.exit(2);
}

let next = 0;
let items = 0;
async function worker() {
  while (next < n) {
    const i = next++;
    const batch = Array.from({ length: 100 }, (_, j) => `user${i * 100 + j}@company${j}.com`);
    const answer = JSON.parse(await post(JSON.stringify({ emails: batch })));
    items += Object.keys(answer.emails).length;
  }
}
await Promise.all([worker(), worker(), worker(), worker()]);
if (items !== n * 100) {
  console.error(`http-layer: ${items} results for ${n * 100} items`);
  process.exit(1);
}
process.exit(0);
