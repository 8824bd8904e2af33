// One engine, two faces: for any list, the library gives each item the record the CLI writes for it (the item as
// read, its status, in input order), and the service receives exactly the same batches from both. A property
// test (fast-check, fixed seed) over lists of addresses, domains, duplicates in other cases, mailbox forms, URLs,
// white space and what is no item at all.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { validateDomains, validateEmails } from '../../src/index.js';
import { run } from '../fake-io.js';
import { homeForEachTest, sandbox, sentBatches } from '../helpers.js';

const home = homeForEachTest();

const local = fc.constantFrom('ann', 'Ann', 'bob', 'cy+news', 'd.e', 'x');
const domain = fc.constantFrom('example.com', 'EXAMPLE.com', 'mailinator.com', 'fake.com', 'bücher.de', 'example.org.', 'sub.mailinator.com', 'nodot');
const item = fc.oneof(
  fc.tuple(local, domain).map(([l, d]) => `${l}@${d}`),
  fc.tuple(fc.constantFrom('Ann ', '"Doe, Jane" ', ''), local, domain).map(([name, l, d]) => `${name}<${l}@${d}>`),
  fc.tuple(fc.constantFrom('http://', 'https://', 'mailto:', ''), domain, fc.constantFrom('', '/path', ':8080')).map(([s, d, p]) => `${s}${d}${p}`),
  fc.tuple(fc.constantFrom(' ', '\t', '', '\u200b'), local, domain, fc.constantFrom(' ', '')).map(([a, l, d, b]) => `${a}${l}@${d}${b}`),
  fc.string({ maxLength: 12 }),
);
const lists = fc.array(item, { minLength: 0, maxLength: 25 });

/** The CLI's records for the items given with --item: [item, status] rows of its CSV, and the batches the service got. */
async function viaCli(kind: 'emails' | 'domains', items: string[]) {
  const { sb, env } = await sandbox({}, home);
  try {
    const r = await run([kind, ...items.map((i) => `--item=${i}`), '-f', 'csv', '-q', '--no-cache', '--batch-size', '7'], { env });
    const rows = (parse(r.stdout, { relax_column_count: true }) as string[][]).slice(1);
    return { exitCode: r.exitCode, rows, batches: sentBatches(sb) };
  } finally {
    await sb.close();
  }
}

async function viaLibrary(kind: 'emails' | 'domains', items: string[]) {
  const { sb } = await sandbox({}, home);
  try {
    const validate = kind === 'emails' ? validateEmails : validateDomains;
    const rows: string[][] = [];
    for await (const r of validate(items, { baseUrl: sb.url, apiKey: sb.key, env: home.env, cache: false, batchSize: 7 })) rows.push([r.item, r.status]);
    return { rows, batches: sentBatches(sb) };
  } finally {
    await sb.close();
  }
}

describe('the library and the CLI', () => {
  for (const kind of ['emails', 'domains'] as const) {
    it(`${kind}: for any list, the same records in the same order, and the same batches sent`, async () => {
      await fc.assert(
        fc.asyncProperty(lists, async (items) => {
          const cli = await viaCli(kind, items);
          const lib = await viaLibrary(kind, items);
          expect(cli.exitCode).toBe(0);
          expect(lib.rows).toEqual(cli.rows);
          expect(lib.batches).toEqual(cli.batches);
        }),
        { seed: kind === 'emails' ? 3601 : 3602, numRuns: 40 },
      );
    }, 120_000);
  }
});
