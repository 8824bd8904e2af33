// Domains, websites and addresses, one check per distinct domain: node examples/validate-domains.mjs
import { startSandbox, validateDomains } from 'idv';

const sandbox = await startSandbox();
const list = ['example.com', 'https://www.mailinator.com/inbox', 'jane@MAILINATOR.com', 'bücher.de', 'not a domain'];
const run = validateDomains(list, { baseUrl: sandbox.url, apiKey: sandbox.apiKey, cache: false });
for await (const result of run) console.log(`${result.input} -> ${result.canonical ?? '(not sent)'}: ${result.status}`);
const facts = await run.done;
console.log(`${facts.items} items, ${facts.unique} distinct domains, ${facts.sent} sent`);
await sandbox.close();
