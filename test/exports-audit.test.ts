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
