// Issue 9 audit: exports in shapes the fixture corpus does not hold, tried as a hostile tester would. Each
// test here failed before the fix named in its commit.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeHome, type Home } from './helpers.js';
import { run } from './fake-io.js';

let home: Home;
beforeEach(async () => {
  home = await makeHome();
});
afterEach(async () => {
  await home.cleanup();
});
const file = async (name: string, content: string | Buffer) => {
  const p = join(home.dir, name);
  await writeFile(p, content);
  return p;
};

describe('line endings', () => {
  it('a CSV whose lines end in LF, CRLF and a lone CR (files joined from several sources) keeps every record apart', async () => {
    const f = await file('mixed.csv', 'Name,Email,Note\nAnn,ann@x.com,\r\nBob,bob@x.com,\rCy,cy@fake.com,\nDee,"dee@x.com",\r\nEd,ed@x.com,"a\r\nnote"');
    const r = await run(['emails', f, '--sandbox', '-q', '--keep-columns']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('Name,Email,Note,status\nAnn,ann@x.com,,ok\nBob,bob@x.com,,ok\nCy,cy@fake.com,,fake\nDee,dee@x.com,,ok\nEd,ed@x.com,"a\r\nnote",ok\n');
  });
});

describe('sample', () => {
  it('rows wider than the 64 KiB sample (an export with thousands of custom fields) are still read as CSV', async () => {
    const fields = Array.from({ length: 4000 }, (_, i) => `Custom field ${i}`);
    const row = (email: string) => ['Ann', email, ...fields.map((_, i) => `value ${i}`)].join(',');
    const f = await file('wide.csv', [['Name', 'Email', ...fields].join(','), row('ann@x.com'), row('bob@fake.com'), row('')].join('\r\n') + '\r\n');
    const r = await run(['emails', f, '--sandbox', '-q']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('email,status\nann@x.com,ok\nbob@fake.com,fake\n,invalid\n');
    const keep = await run(['emails', f, '--sandbox', '-q', '--keep-columns']);
    const values = fields.map((_, i) => `value ${i}`).join(',');
    expect(keep.stdout).toBe(
      `Name,Email,${fields.join(',')},status\nAnn,ann@x.com,${values},ok\nAnn,bob@fake.com,${values},fake\nAnn,,${values},invalid\n`,
    );
  });
});

describe('header', () => {
  it('rows that end in a delimiter under a header that does not: the header stays the header, not a skipped preamble', async () => {
    const f = await file('trailing.csv', 'Name,Email,Phone\nAnn,ann@x.com,555,\nBob,bob@fake.com,,\nCy,,556,\n');
    const r = await run(['emails', f, '--sandbox', '-q', '--keep-columns']);
    expect(r.stderr).toBe(''); // no note: nothing skipped
    expect(r.stdout).toBe('Name,Email,Phone,,status\nAnn,ann@x.com,555,,ok\nBob,bob@fake.com,,,fake\nCy,,556,,invalid\n');
    const json = await run(['emails', f, '--sandbox', '-q', '--keep-columns', '-f', 'ndjson']);
    expect(json.stdout.split('\n')[0]).toBe('{"Name":"Ann","Email":"ann@x.com","Phone":"555","column4":"","status":"ok"}');
  });
});
