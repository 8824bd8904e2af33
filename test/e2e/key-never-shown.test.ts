// The API key in use, from IDV_API_KEY or from the config file written by `idv auth login`, never
// appears in any output, however the service repeats it (error bodies, headers, statuses), in any form
// (raw, `Bearer <key>`, URL-encoded, JSON-escaped).
import { describe, expect, it } from 'vitest';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sandbox, homeForEachTest } from '../helpers.js';
import { run } from '../fake-io.js';
import type { Fault, TestSandbox } from '../sandbox/test-sandbox.js';
import { createClient } from '../../src/api/client.js';
import { Secrets } from '../../src/system/secrets.js';

// Characters that make its URL-encoded and JSON-escaped forms differ from the key itself.
const KEY = 'sk_live_Zx9+/Q"w\\T~1aB';
const FORMS = [KEY, encodeURIComponent(KEY), JSON.stringify(KEY).slice(1, -1)];
const echo = (what: string) => `${what}: Bearer ${KEY} / ${encodeURIComponent(KEY)} / ${JSON.stringify(KEY).slice(1, -1)}`;

const home = homeForEachTest();

async function filesUnder(dir: string): Promise<string> {
  let text = '';
  for (const name of await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])) {
    if (name.isFile()) text += await readFile(join(name.parentPath, name.name), 'utf8');
  }
  return text;
}

function expectNoKey(...texts: string[]): void {
  for (const t of texts) for (const f of FORMS) expect(t.includes(f), `found ${JSON.stringify(f)} in:\n${t}`).toBe(false);
}

const CASES: Array<{ name: string; faults: Array<[Fault, number]>; args: string[]; env?: Record<string, string>; exit: number; says: RegExp }> = [
  {
    name: 'a 400 whose message repeats the key',
    faults: [[{ kind: 'status', status: 400, body: JSON.stringify({ message: echo('Bad request for') }) }, 1]],
    args: [],
    exit: 1,
    says: /the service answered HTTP 400: Bad request for: Bearer \*\*\*\*/,
  },
  {
    name: 'a 500 whose message repeats the key, every attempt',
    faults: [[{ kind: 'status', status: 500, body: JSON.stringify({ message: echo('Internal error') }) }, 2]],
    args: ['--retries', '1'],
    exit: 1,
    says: /could not be validated/,
  },
  {
    name: 'a 401 whose message repeats the key',
    faults: [[{ kind: 'status', status: 401, body: JSON.stringify({ message: echo('Unauthorized') }) }, 1]],
    args: [],
    exit: 3,
    says: /refused the API key/,
  },
  {
    name: '--verbose with IDV_DEBUG=1 and rate-limit headers that repeat the key',
    faults: [
      [{ kind: 'status', status: 503, body: echo('down'), headers: { RateLimit: `"validations";r=5;t=1;k="${KEY}"`, 'Retry-After': '0' } }, 1],
    ],
    args: ['--verbose'],
    env: { IDV_DEBUG: '1' },
    exit: 0,
    says: /POST \/emails\/validate 3 items → 503 .*RateLimit: "validations";r=5;t=1;k="\*\*\*\*"/,
  },
  {
    name: 'a status that is the key',
    faults: [[{ kind: 'status-for', status: KEY }, 1]],
    args: [],
    exit: 1,
    says: /could not be validated/,
  },
];

for (const source of ['IDV_API_KEY', 'the config file'] as const) {
  describe(`a key from ${source}`, () => {
    for (const c of CASES) {
      it(`${c.name}: not in stdout, stderr, -o, --report, --split or the cache`, async () => {
        const { sb, env: sbEnv } = await sandbox({ key: KEY }, home);
        try {
          let env: Record<string, string | undefined> = { ...sbEnv, ...c.env };
          if (source === 'the config file') {
            const { IDV_API_KEY: _unset, ...rest } = env;
            env = rest;
            const login = await run(['auth', 'login'], { env, input: KEY + '\n' });
            expect(login.exitCode, login.stderr).toBe(0);
            expectNoKey(login.stdout, login.stderr);
          }
          for (const [fault, times] of c.faults) sb.inject(fault, times);
          const list = join(home.dir, 'list.txt');
          await writeFile(list, 'a@example.com\nb@example.com\nc@example.com\n');
          const out = join(home.dir, 'out.csv');
          const report = join(home.dir, 'run.json');
          const r = await run(['emails', list, '-o', out, '--report', report, '--split', join(home.dir, 'split'), ...c.args], { env });
          expect(r.exitCode, r.stderr).toBe(c.exit);
          expect(r.stderr).toMatch(c.says);
          const written = await readFile(out, 'utf8').catch(() => '');
          const cache = await filesUnder(join(home.dir, 'cache'));
          const receipt = await readFile(report, 'utf8');
          expect(JSON.parse(receipt)).toMatchObject({ exitCode: c.exit });
          expectNoKey(r.stdout, r.stderr, written, cache, receipt, await filesUnder(join(home.dir, 'split')));
          // The same run on stdout too.
          for (const [fault, times] of c.faults) sb.inject(fault, times);
          const r2 = await run(['emails', list, '--no-cache', ...c.args], { env });
          expect(r2.exitCode, r2.stderr).toBe(c.exit);
          expectNoKey(r2.stdout, r2.stderr);
          const status = await run(['auth', 'status'], { env });
          expectNoKey(status.stdout, status.stderr);
          expect(sb.requests.every((q: TestSandbox['requests'][number]) => q.authorization === `Bearer ${KEY}`)).toBe(true);
        } finally {
          await sb.close();
        }
      });
    }
  });
}

// Two layers keep the key out: the client masks what the service says before it becomes a reason
// (src/api/client.ts), and every message for a person is masked again on its way out (oneLine in
// src/system/io.ts). The runs above pass through both; each layer is pinned alone here.
describe('each layer alone', () => {
  it('an error message that holds the key for another reason (a file named after it) shows it masked', async () => {
    const missing = join(home.dir, `list-${KEY}.txt`);
    const r = await run(['emails', missing], { env: { ...home.env, IDV_API_KEY: KEY } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(join(home.dir, 'list-****.txt'));
    expectNoKey(r.stdout, r.stderr);
  });

  it('the client masks the key in the reason it gives for a refused batch', async () => {
    const { sb } = await sandbox({ key: KEY }, home);
    const client = await createClient({ baseUrl: sb.url, key: KEY, timeoutMs: 20_000, connections: 1, env: {}, secrets: new Secrets() });
    try {
      sb.inject({ kind: 'status', status: 400, body: JSON.stringify({ message: echo('Bad request for') }) });
      const outcome = await client.validate('/emails/validate', 'emails', ['a@example.com'], new AbortController().signal);
      expect(outcome).toMatchObject({ type: 'failed' });
      const reason = (outcome as { reason: string }).reason;
      expect(reason).toBe('the service answered HTTP 400: Bad request for: Bearer **** / **** / ****');
      expectNoKey(reason);
    } finally {
      await client.close();
      await sb.close();
    }
  });
});
