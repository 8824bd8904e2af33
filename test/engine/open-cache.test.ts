// A run's result cache (src/engine/open-cache.ts): the scope of its service and endpoint, in the folder given or
// idv's cache folder, loaded into the plan; damaged lines said; a folder that cannot be used is a warning and a run
// without a cache, never the run's end.
import { describe, expect, it } from 'vitest';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openScope } from '../../src/cache/store.js';
import { parseCacheTtl } from '../../src/cache/ttl.js';
import { openCache } from '../../src/engine/open-cache.js';
import { Plan } from '../../src/plan/plan.js';
import { homeForEachTest } from '../helpers.js';
import { onlyOn } from '../platforms.js';

const home = homeForEachTest();
const URL = 'https://api.example.test';
const TTL = parseCacheTtl('7d');

async function opened(o: { dir?: string; kind?: 'emails' | 'domains' } = {}) {
  const warnings: string[] = [];
  const plan = new Plan();
  const scope = await openCache({ baseUrl: URL, kind: o.kind ?? 'emails', ttl: TTL, dir: o.dir, env: home.env }, plan, (w) => warnings.push(w));
  return { scope, plan, warnings };
}

describe('openCache', () => {
  it("idv's cache folder by default: the scope of the service and endpoint, its answers known to the plan", async () => {
    const dir = join(home.env.XDG_CACHE_HOME!, 'idv');
    const earlier = openScope(dir, URL, '/emails/validate', TTL);
    (await earlier.load()).results.close();
    earlier.append([['ann@example.com', 'disposable']]);
    const { scope, plan, warnings } = await opened();
    try {
      expect(warnings).toEqual([]);
      expect(scope!.dir).toBe(dir);
      expect(scope!.path).toBe(earlier.path);
      expect(plan.lookup('ann@example.com')).toMatchObject({ kind: 'known', status: 'disposable', source: 'cache' });
    } finally {
      plan.close();
    }
  });

  it("each endpoint has its own scope: a domain's answer is not an address's", async () => {
    const dir = join(home.dir, 'cache');
    const emails = await opened({ dir });
    const domains = await opened({ dir, kind: 'domains' });
    try {
      expect(emails.scope!.path).not.toBe(domains.scope!.path);
      expect(emails.scope!.dir).toBe(dir);
    } finally {
      emails.plan.close();
      domains.plan.close();
    }
  });

  it('damaged lines: said, with the log, and what was done with them', async () => {
    const dir = join(home.dir, 'cache');
    const first = await opened({ dir });
    first.plan.close();
    await writeFile(first.scope!.path, `# idv cache v1 ${URL} /emails/validate\n${Math.floor(Date.now() / 1000)}\tok\tann@example.com\ngarbage\n`);
    const { plan, warnings } = await opened({ dir });
    try {
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(new RegExp(`^the cache had 1 damaged line \\(${first.scope!.path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\); (rebuilt it without them|ignored them)\\.$`));
      expect(plan.lookup('ann@example.com')).toMatchObject({ kind: 'known', status: 'ok', source: 'cache' });
    } finally {
      plan.close();
    }
  });

  onlyOn('owners').it('a folder others can write in: a warning naming it and the fix, and no cache (the run goes on)', async () => {
    const dir = join(home.dir, 'shared-cache');
    await mkdir(dir);
    await chmod(dir, 0o777);
    const { scope, warnings } = await opened({ dir });
    expect(scope).toBeNull();
    expect(warnings).toEqual([`cannot use the cache in ${dir}: other users can write in it (mode 0777) and could plant forged results; run chmod go-w ${dir}; going on without it.`]);
  });

  it('a file where the folder should be: a warning, and no cache', async () => {
    const dir = join(home.dir, 'a-file');
    await writeFile(dir, 'x');
    const { scope, warnings } = await opened({ dir });
    expect(scope).toBeNull();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(new RegExp(`^cannot use the cache in ${dir.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: .*; going on without it\\.$`));
  });
});
