// The library's public face: `import { validateEmails, validateDomains, readRecords, startSandbox } from 'idv'`.
// The same engine as the CLI (dedup, cache, claims, retries, quota stops, spend cap), without a terminal: nothing
// here writes to standard output or error, reads argv, exits the process, or keeps state between calls.
// docs/api.md is the contract; these declarations are public under semver.
import type { Items, ReadOptions, RecordSource, Records, Sandbox, SandboxOptions, Validation, ValidateOptions } from './library/types.js';
import { validate } from './library/validate.js';
import { readRecords as read } from './library/read-records.js';
import { startSandbox as sandbox } from './library/sandbox.js';

export { IdvError, type ErrorKind } from './core/errors.js';
export type * from './library/types.js';

/**
 * Validate email addresses: the results come in input order, each as soon as it is known; `done` gives the run's
 * facts once the iteration ends. Duplicates are sent once, invalid items never, cached ones are free.
 *
 * @example
 * const run = validateEmails(['ann@example.com', 'bob@mailinator.com'], { apiKey, baseUrl });
 * for await (const r of run) console.log(r.item, r.status);
 * console.log((await run.done).sent);
 */
export function validateEmails(items: Items, options?: ValidateOptions): Validation {
  return validate('emails', items, options);
}

/**
 * Validate domains (or the domain part of addresses, the host of URLs), once per distinct domain; as
 * validateEmails.
 *
 * @example
 * for await (const r of validateDomains(['example.com', 'https://mailinator.com/'], { apiKey, baseUrl })) console.log(r.item, r.status);
 */
export function validateDomains(items: Items, options?: ValidateOptions): Validation {
  return validate('domains', items, options);
}

/**
 * Read a list as the CLI reads it (plain lists, CSV/TSV, workbooks, vCards; any encoding; the layout guessed):
 * its records in order, each with its item cell and every cell of its row, and the layout idv chose.
 *
 * @example
 * const file = await readRecords('contacts.csv');
 * console.log(file.layout.column);
 * for await (const record of file) console.log(record.item, record.cells);
 */
export function readRecords(source: RecordSource, options?: ReadOptions): Promise<Records> {
  return read(source, options);
}

/**
 * Start the service's emulator on loopback, for a program's tests: the documented API, its quota and window,
 * 401 and 429 and the rate-limit headers, items classified by fixed rules.
 *
 * @example
 * const sandbox = await startSandbox({ quota: 100 });
 * const run = validateEmails(list, { baseUrl: sandbox.url, apiKey: sandbox.apiKey, cache: false });
 * await sandbox.close();
 */
export function startSandbox(options?: SandboxOptions): Promise<Sandbox> {
  return sandbox(options);
}
