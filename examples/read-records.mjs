// Clean a CSV export as `idv emails sample.csv --keep-columns --exclude disposable,fake,invalid` does, in a program:
// read it as the CLI reads it, validate its items, keep the rows worth keeping. node examples/read-records.mjs
import { readRecords, startSandbox, validateEmails } from 'idv';

const file = await readRecords(new URL('sample.csv', import.meta.url));
console.log(`columns: ${file.layout.header.cells.join(', ')}; the addresses are in "${file.layout.column.name}"`);
const rows = [];
for await (const record of file) rows.push(record);

const sandbox = await startSandbox();
const bad = new Set(['disposable', 'fake', 'invalid']);
let i = 0;
for await (const result of validateEmails(rows.map((r) => r.item), { baseUrl: sandbox.url, apiKey: sandbox.apiKey, cache: false })) {
  const row = rows[i++];
  if (!bad.has(result.status)) console.log([...row.cells, result.status].join(','));
}
await sandbox.close();
