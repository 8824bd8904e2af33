// Validate a list against a local sandbox and print each status: node examples/validate-emails.mjs
import { startSandbox, validateEmails } from 'idv';

const sandbox = await startSandbox();
const list = ['ann@example.com', 'bob@mailinator.com', 'cy+news@example.org', 'not-an-address', 'ANN@example.com'];
for await (const result of validateEmails(list, { baseUrl: sandbox.url, apiKey: sandbox.apiKey, cache: false })) {
  console.log(`${result.item}: ${result.status}`);
}
await sandbox.close();
