// validateEmails / validateDomains as a Node program calls them, against a real sandbox on loopback: results in
// input order with the item as given, as read and as sent, the facts in `done`, what the service received; the key
// and the service from the options or the environment at the call; the stops a program acts on (the quota as
// values, an empty quota, the spend cap, a refused key, an abort); two calls at once paying once.
import { describe, expect, it } from 'vitest';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IdvError, validateDomains, validateEmails, type ValidateOptions, type ValidationResult } from '../../src/index.js';
import { homeForEachTest, sandbox, sentBatches, sentItems } from '../helpers.js';
import type { TestSandbox } from '../sandbox/test-sandbox.js';

const home = homeForEachTest();

/** The options that point at the sandbox, with the test's home as the environment (its cache folder). */
const at = (sb: TestSandbox, more: ValidateOptions = {}): ValidateOptions => ({ baseUrl: sb.url, apiKey: sb.key, env: home.env, ...more });

async function collect(items: Iterable<string> | AsyncIterable<string>, options: ValidateOptions, kind: 'emails' | 'domains' = 'emails') {
  const run = kind === 'emails' ? validateEmails(items, options) : validateDomains(items, options);
  const results: ValidationResult[] = [];
  let error: unknown = null;
  try {
    for await (const r of run) results.push(r);
  } catch (err) {
    error = err;
  }
  const done = await run.done.then(
    (facts) => ({ facts }),
    (err: unknown) => ({ err }),
  );
  return { results, error, done };
}

const statuses = (rs: ValidationResult[]) => rs.map((r) => `${r.item}=${r.status}`);

describe('validateEmails', () => {
  it('gives each item its result in input order (as given, as read, as sent, status, source), sends each once, and the facts in done', async () => {
    const { sb } = await sandbox({}, home);
    try {
      const items = ['ann@example.com', ' Bob <bob@mailinator.com>', 'not-an-address', 'ann@EXAMPLE.com', 'cy+news@example.org'];
      const { results, error, done } = await collect(items, at(sb));
      expect(error).toBeNull();
      expect(results).toEqual([
        { input: 'ann@example.com', item: 'ann@example.com', canonical: 'ann@example.com', status: 'ok', source: 'service' },
        { input: ' Bob <bob@mailinator.com>', item: 'bob@mailinator.com', canonical: 'bob@mailinator.com', status: 'disposable', source: 'service' },
        { input: 'not-an-address', item: 'not-an-address', canonical: null, status: 'invalid', source: 'check' },
        { input: 'ann@EXAMPLE.com', item: 'ann@EXAMPLE.com', canonical: 'ann@EXAMPLE.com', status: 'ok', source: 'service' },
        { input: 'cy+news@example.org', item: 'cy+news@example.org', canonical: 'cy+news@example.org', status: 'alias', source: 'service' },
      ]);
      expect(sentItems(sb)).toEqual(['ann@example.com', 'bob@mailinator.com', 'cy+news@example.org']);
      expect(done).toEqual({
        facts: {
          items: 5,
          unique: 3,
          invalid: 1,
          fromCache: 0,
          statuses: { ok: 2, disposable: 1, invalid: 1, alias: 1 },
          sent: 3,
          requests: 1,
          retries: 0,
          capped: 0,
          quotaStopped: false,
          quota: { remaining: 997, limit: 1000, resetsAt: expect.any(Date) },
        },
      });
    } finally {
      await sb.close();
    }
  });

  it('a second call is answered from the cache in the folder the environment names, and says so; cache: false neither reads nor writes it', async () => {
    const { sb } = await sandbox({}, home);
    try {
      await collect(['ann@example.com'], at(sb));
      const again = await collect(['ann@example.com', 'bob@example.com'], at(sb));
      expect(again.results.map((r) => `${r.item}=${r.status}/${r.source}`)).toEqual(['ann@example.com=ok/cache', 'bob@example.com=ok/service']);
      expect(again.done).toMatchObject({ facts: { fromCache: 1, sent: 1 } });
      const off = await collect(['ann@example.com'], at(sb, { cache: false }));
      expect(off.results[0]!.source).toBe('service');
      expect(sentItems(sb)).toEqual(['ann@example.com', 'bob@example.com', 'ann@example.com']);
    } finally {
      await sb.close();
    }
  });

  it('cache: a folder of its own, and a TTL in the CLI\'s grammar (a bad one a usage error naming cache.ttl)', async () => {
    const { sb } = await sandbox({}, home);
    try {
      const folder = join(home.dir, 'own-cache');
      await collect(['ann@example.com'], at(sb, { cache: { folder, ttl: 'ok=90d,7d' } }));
      const again = await collect(['ann@example.com'], at(sb, { cache: folder }));
      expect(again.results[0]!.source).toBe('cache');
      const bad = await collect(['ann@example.com'], at(sb, { cache: { ttl: '7' } }));
      expect(bad.error).toBeInstanceOf(IdvError);
      expect(bad.error).toMatchObject({ kind: 'usage', exitCode: 2, message: expect.stringContaining('cache.ttl') });
    } finally {
      await sb.close();
    }
  });

  it('the key and the service from the environment at the call (IDV_API_KEY, IDV_BASE_URL), else the stored key as the CLI finds it', async () => {
    const { sb } = await sandbox({}, home);
    try {
      const fromEnv = await collect(['ann@example.com'], { env: { ...home.env, IDV_BASE_URL: sb.url, IDV_API_KEY: sb.key } });
      expect(statuses(fromEnv.results)).toEqual(['ann@example.com=ok']);
      await mkdir(join(home.env.XDG_CONFIG_HOME!, 'idv'), { recursive: true, mode: 0o700 });
      await writeFile(join(home.env.XDG_CONFIG_HOME!, 'idv', 'config.json'), JSON.stringify({ apiKey: sb.key }), { mode: 0o600 });
      const stored = await collect(['bob@example.com'], { env: { ...home.env, IDV_BASE_URL: sb.url } });
      expect(statuses(stored.results)).toEqual(['bob@example.com=ok']);
      expect(sb.requests.map((r) => r.authorization)).toEqual([`Bearer ${sb.key}`, `Bearer ${sb.key}`]);
    } finally {
      await sb.close();
    }
  });

  it('no key anywhere: an auth error (exit code 3) before anything is sent; a refused key: an auth error with the facts', async () => {
    const { sb } = await sandbox({}, home);
    try {
      const none = await collect(['ann@example.com'], { env: { ...home.env, IDV_BASE_URL: sb.url } });
      expect(none.error).toMatchObject({ kind: 'auth', exitCode: 3, message: 'No API key: give the apiKey option, set IDV_API_KEY, or store one with idv auth login.' });
      expect(none.done).toEqual({ err: none.error });
      const refused = await collect(['ann@example.com'], at(sb, { apiKey: 'sk_wrong_0123456789' }));
      expect(refused.error).toMatchObject({ kind: 'auth', exitCode: 3, facts: { requests: 1, sent: 0 } });
      expect(refused.results).toEqual([]);
    } finally {
      await sb.close();
    }
  });

  it('the quota used up midway: the rest quota_exceeded (values, no error), the reset in the facts', async () => {
    const { sb } = await sandbox({ quota: 2 }, home);
    try {
      const { results, error, done } = await collect(['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com'], at(sb, { batchSize: 2, concurrency: 1 }));
      expect(error).toBeNull();
      expect(statuses(results)).toEqual(['a@example.com=ok', 'b@example.com=ok', 'c@example.com=quota_exceeded', 'd@example.com=quota_exceeded']);
      expect(done).toMatchObject({ facts: { quotaStopped: true, quota: { remaining: 0, limit: 2, resetsAt: expect.any(Date) } } });
      expect((done as { facts: { quota: { resetsAt: Date } } }).facts.quota.resetsAt.getTime()).toBeGreaterThan(Date.now());
    } finally {
      await sb.close();
    }
  });

  it('the quota used up before anything was validated: an IdvError of kind quota saying when it resets; the invalid items before it were given', async () => {
    const { sb } = await sandbox({ quota: 1 }, home);
    try {
      await collect(['first@example.com'], at(sb, { cache: false })); // uses the window's one validation
      const { results, error } = await collect(['nope', 'a@example.com', 'b@example.com'], at(sb, { cache: false }));
      expect(statuses(results)).toEqual(['nope=invalid']);
      expect(error).toBeInstanceOf(IdvError);
      expect(error).toMatchObject({ kind: 'quota', exitCode: 4, facts: { sent: 0, statuses: { invalid: 1 }, quota: { remaining: 0, limit: 1, resetsAt: expect.any(Date) } } });
      expect((error as Error).message).toMatch(/^The quota is used up: the service validated nothing in this run before refusing more; it resets at \d{4}-\d\d-\d\dT/);
    } finally {
      await sb.close();
    }
  });

  it('the spend cap: every result given (those past the cap quota_exceeded), then an IdvError of kind quota with what was spent', async () => {
    const { sb } = await sandbox({}, home);
    try {
      const { results, error, done } = await collect(['a@example.com', 'b@example.com', 'c@example.com'], at(sb, { maxSpend: 1 }));
      expect(statuses(results)).toEqual(['a@example.com=ok', 'b@example.com=quota_exceeded', 'c@example.com=quota_exceeded']);
      expect(error).toMatchObject({ kind: 'quota', exitCode: 4, message: 'Spend cap reached: maxSpend 1 items sent; 2 not validated (quota_exceeded).', facts: { capped: 2, sent: 1 } });
      expect(done).toEqual({ err: error });
      expect(sentItems(sb)).toEqual(['a@example.com']);
    } finally {
      await sb.close();
    }
  });

  it('an abort: nothing more is sent, what was answered is given and cached, then an IdvError of kind interrupted', async () => {
    const { sb } = await sandbox({ delayMs: 300 }, home);
    try {
      const ac = new AbortController();
      const items = Array.from({ length: 50 }, (_, i) => `u${i}@example.com`);
      const run = validateEmails(items, at(sb, { signal: ac.signal, batchSize: 10, concurrency: 1 }));
      const got: string[] = [];
      let error: unknown = null;
      const loop = (async () => {
        try {
          for await (const r of run) got.push(r.item);
        } catch (err) {
          error = err;
        }
      })();
      for (let i = 0; i < 200 && sb.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      ac.abort();
      await loop;
      expect(error).toMatchObject({ kind: 'interrupted', exitCode: 130, message: 'Aborted by the signal: results received before it were given, and are cached.' });
      expect(sentBatches(sb)).toEqual([items.slice(0, 10)]);
      expect(got).toEqual(items.slice(0, 10)); // the batch in flight was paid for: given
      const again = await collect(items.slice(0, 10), at(sb));
      expect(again.results.every((r) => r.source === 'cache')).toBe(true);
    } finally {
      await sb.close();
    }
  });

  it('an abort with cache: false says nothing of a cache', async () => {
    const { sb } = await sandbox({ delayMs: 300 }, home);
    try {
      const ac = new AbortController();
      const run = validateEmails(['a@example.com', 'b@example.com'], at(sb, { signal: ac.signal, batchSize: 1, concurrency: 1, cache: false }));
      const loop = (async () => {
        for await (const _ of run) void _;
      })().catch((err: unknown) => err);
      for (let i = 0; i < 2000 && sb.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      ac.abort();
      expect(await loop).toMatchObject({ kind: 'interrupted', message: 'Aborted by the signal: results received before it were given.' });
    } finally {
      await sb.close();
    }
  });

  it('two calls at once in one process pay once for the items they share', async () => {
    const { sb } = await sandbox({ delayMs: 100 }, home);
    try {
      const shared = Array.from({ length: 40 }, (_, i) => `s${i}@example.com`);
      const [a, b] = await Promise.all([
        collect([...shared, 'only-a@example.com'], at(sb, { batchSize: 5, concurrency: 2 })),
        collect(['only-b@example.com', ...shared], at(sb, { batchSize: 5, concurrency: 2 })),
      ]);
      expect(a.results.map((r) => r.status).every((s) => s === 'ok')).toBe(true);
      expect(b.results).toHaveLength(41);
      const sent = sentItems(sb);
      expect(sent.length).toBe(new Set(sent).size);
      expect(new Set(sent)).toEqual(new Set([...shared, 'only-a@example.com', 'only-b@example.com']));
    } finally {
      await sb.close();
    }
  });

  it('any async iterable in, a stream out: each result comes before the next item is given', async () => {
    const { sb } = await sandbox({}, home);
    try {
      const seen: string[] = [];
      let next: () => void = () => undefined;
      async function* slow() {
        for (const item of ['ann@example.com', 'bob@example.com', 'cy@example.com']) {
          seen.push(`in ${item}`);
          yield item;
          await new Promise<void>((resolve) => (next = resolve)); // the next item comes once this one's result is out
        }
      }
      for await (const r of validateEmails(slow(), at(sb))) {
        seen.push(`out ${r.item}`);
        next();
      }
      expect(seen).toEqual(['in ann@example.com', 'out ann@example.com', 'in bob@example.com', 'out bob@example.com', 'in cy@example.com', 'out cy@example.com']);
    } finally {
      await sb.close();
    }
  });

  it('an async iterable that never ends: after a quota stop, its next pause ends the results (the rest quota_exceeded) and done says the quota stopped it', async () => {
    const { sb } = await sandbox({ quota: 3 }, home);
    try {
      const items = ['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com'];
      let next: () => void = () => undefined;
      async function* endless() {
        for (const item of items) {
          yield item;
          await new Promise<void>((resolve) => (next = resolve)); // the next item comes once this one's result is out
        }
        await new Promise<never>(() => undefined); // a stream that stays open and silent
      }
      const run = validateEmails(endless(), at(sb));
      const results: ValidationResult[] = [];
      for await (const r of run) {
        results.push(r);
        next();
      }
      expect(statuses(results)).toEqual(['a@example.com=ok', 'b@example.com=ok', 'c@example.com=ok', 'd@example.com=quota_exceeded']);
      await expect(run.done).resolves.toMatchObject({ items: 4, sent: 3, quotaStopped: true, statuses: { ok: 3, quota_exceeded: 1 }, quota: { remaining: 0, limit: 3 } });
      expect(sentBatches(sb)).toEqual([['a@example.com'], ['b@example.com'], ['c@example.com']]);
    } finally {
      await sb.close();
    }
  }, 20_000); // only to stop a run that would wait for the end of the iterable

  it('onProgress is told the counts as they move; the last call has them all', async () => {
    const { sb } = await sandbox({}, home);
    try {
      const seen: number[] = [];
      let last = {};
      await collect(['a@example.com', 'b@example.com', 'nope'], at(sb, { onProgress: (p) => (seen.push(p.done), (last = p)) }));
      expect(seen.length).toBeGreaterThan(0);
      expect(last).toMatchObject({ read: 3, sent: 2, requests: 1, fromCache: 0, quotaLeft: 998 });
    } finally {
      await sb.close();
    }
  });

  it('what cannot be a run is refused at the call, as a usage error: one string, a number out of range, a plain http:// to another host', async () => {
    expect(() => validateEmails('ann@example.com' as unknown as string[])).toThrow(/takes a list of items, not one string/);
    expect(() => validateEmails([], { batchSize: 0 })).toThrow(expect.objectContaining({ kind: 'usage', message: 'batchSize must be a whole number of at least 1, not 0.' }));
    const http = await collect(['a@example.com'], { baseUrl: 'http://api.example.com', apiKey: 'sk_test_0123456789' });
    expect(http.error).toMatchObject({ kind: 'usage', message: expect.stringContaining('Refusing plain http://') });
  });

  it('results can be iterated once; done settles only once they end', async () => {
    const { sb } = await sandbox({}, home);
    try {
      const run = validateEmails(['a@example.com'], at(sb));
      const it = run[Symbol.asyncIterator]();
      expect(() => run[Symbol.asyncIterator]()).toThrow('iterated once');
      let settled = false;
      void run.done.then(() => (settled = true));
      await new Promise((r) => setTimeout(r, 20));
      expect(settled).toBe(false);
      while (!(await it.next()).done);
      await run.done;
      expect(settled).toBe(true);
    } finally {
      await sb.close();
    }
  });

  it('a program that stops reading (break) ends the run: done rejects as interrupted', async () => {
    const { sb } = await sandbox({}, home);
    try {
      const run = validateEmails(['nope', 'a@example.com'], at(sb));
      for await (const _r of run) break;
      await expect(run.done).rejects.toMatchObject({ kind: 'interrupted' });
    } finally {
      await sb.close();
    }
  });
});

describe('validateDomains', () => {
  it('validates each distinct domain once (addresses, URLs, Unicode), each record keeping its host as written', async () => {
    const { sb } = await sandbox({}, home);
    try {
      const { results } = await collect(['bücher.de', 'https://BÜCHER.de/shop', 'ann@mailinator.com', 'no domain'], at(sb), 'domains');
      expect(results.map((r) => [r.item, r.canonical, r.status])).toEqual([
        ['bücher.de', 'xn--bcher-kva.de', 'ok'],
        ['BÜCHER.de', 'xn--bcher-kva.de', 'ok'],
        ['mailinator.com', 'mailinator.com', 'disposable'],
        ['no domain', null, 'invalid'],
      ]);
      expect(sentItems(sb)).toEqual(['xn--bcher-kva.de', 'mailinator.com']);
      expect(sb.requests[0]!.path).toBe('/domains/validate');
    } finally {
      await sb.close();
    }
  });
});
