// A program's own test of how it handles the quota, against a sandbox that allows 2 validations an hour:
// the quota as values (quota_exceeded, and when it resets), the spend cap as an IdvError. node examples/start-sandbox.mjs
import { IdvError, startSandbox, validateEmails } from 'idv';

const sandbox = await startSandbox({ quota: 2, window: 3_600_000 });
const options = { baseUrl: sandbox.url, apiKey: sandbox.apiKey, cache: false, batchSize: 1, concurrency: 1 };

const run = validateEmails(['a@example.com', 'b@example.com', 'c@example.com'], options);
for await (const result of run) console.log(`${result.item}: ${result.status}`);
const { quota } = await run.done;
console.log(`quota left: ${quota.remaining} of ${quota.limit}; it resets within the hour: ${quota.resetsAt - Date.now() <= 3_600_000}`);

try {
  for await (const result of validateEmails(['d@example.com', 'e@example.com'], { ...options, maxSpend: 0 })) console.log(`${result.item}: ${result.status}`);
} catch (err) {
  if (!(err instanceof IdvError)) throw err;
  console.log(`stopped (${err.kind}, exit code ${err.exitCode}): ${err.message}`);
}
await sandbox.close();
