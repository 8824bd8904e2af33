// The same in TypeScript; it type-checks under --strict (tsc --strict --module nodenext). Run it compiled, or with
// node --experimental-strip-types on Node 22.6 and later.
import { startSandbox, validateEmails, type ValidationFacts, type ValidationResult } from 'idv';

const sandbox = await startSandbox();
const list: string[] = ['ann@example.com', 'bob@mailinator.com', 'cy+news@example.org', 'not-an-address', 'ANN@example.com'];
const run = validateEmails(list, { baseUrl: sandbox.url, apiKey: sandbox.apiKey, cache: false });
for await (const result of run) {
  const r: ValidationResult = result;
  console.log(`${r.item}: ${r.status}`);
}
const facts: ValidationFacts = await run.done;
console.log(`${facts.sent} sent in ${facts.requests} request(s)`);
await sandbox.close();
