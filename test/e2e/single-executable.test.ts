// The single executable: the end-to-end core cases run against dist-bin/idv, built by
// `npm run build:binary` (not by `npm test`: it downloads a Node binary and takes a minute). When it has not
// been built these tests are skipped, and say so loudly.
//
// Each case runs the binary with a clean environment (its own HOME and XDG folders) against a sandbox
// started in this process, or its in-process --sandbox, and asserts exact output, exit code and what the
// server received; where the text is long (help), the binary must print exactly what `node bin/idv.js` does.
import { describe, expect, it } from 'vitest';
import { execa, type Result } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ELAPSED, fixture, idv, ROOT, sandbox, sentBatches, sentItems, type Home, withHome } from '../helpers.js';
import { onlyOn } from '../platforms.js';

/** IDV_BINARY=path tests another build (e.g. `node scripts/build-binary.mjs --node 26 --out /tmp/idv26`). */
const BIN = process.env.IDV_BINARY || join(ROOT, 'dist-bin', 'idv');
/** The binary's build facts say which dist/program.cjs it was made from: one made from another is stale. */
function staleness(): string | null {
  if (!existsSync(BIN)) return 'dist-bin/idv is not built';
  if (process.env.IDV_BINARY) return null;
  try {
    const facts = JSON.parse(readFileSync(`${BIN}.build.json`, 'utf8')) as { builtFrom?: string };
    const now = createHash('sha256').update(readFileSync(join(ROOT, 'dist', 'program.cjs'))).digest('hex');
    return facts.builtFrom === now ? null : 'dist-bin/idv was built from another dist/ than the one under test';
  } catch {
    return 'dist-bin/idv has no build facts (dist-bin/idv.build.json)';
  }
}
const why = staleness();
const built = why === null;
if (!built) {
  console.warn(`\n*** test/e2e/single-executable.test.ts: SKIPPED — ${why}, so the single executable is NOT tested. Run \`npm run build:binary\`, then this test. ***\n`);
}

/** Run the binary; never rejects. */
function bin(args: string[], o: { env: Record<string, string>; input?: string; cwd?: string }): Promise<Result> {
  return execa(BIN, args, {
    env: o.env,
    extendEnv: false,
    reject: false,
    cwd: o.cwd ?? ROOT,
    timeout: 30_000,
    stripFinalNewline: false,
    ...(o.input === undefined ? { stdin: 'ignore' as const } : { input: o.input }),
  }) as unknown as Promise<Result>;
}


// A small list with every status the sandbox gives, a duplicate (by domain case) and an invalid line.
const LIST = [
  'ada@example.com',
  'bob+news@example.com',
  'cy@mailinator.com',
  'dee@example.invalid',
  'not an address',
  'ADA@EXAMPLE.COM',
  'ada@Example.com',
].join('\n') + '\n';
const RESULTS: Array<[string, string]> = [
  ['ada@example.com', 'ok'],
  ['bob+news@example.com', 'alias'],
  ['cy@mailinator.com', 'disposable'],
  ['dee@example.invalid', 'fake'],
  ['not an address', 'invalid'],
  ['ADA@EXAMPLE.COM', 'ok'],
  ['ada@Example.com', 'ok'],
];
const CSV = 'email,status\n' + RESULTS.map(([e, s]) => `${e},${s}\n`).join('');
/** What is sent: distinct valid items, once each (the domain's case does not make a new item). */
const SENT = ['ada@example.com', 'bob+news@example.com', 'cy@mailinator.com', 'dee@example.invalid', 'ADA@EXAMPLE.COM'];

onlyOn('binary').describe.concurrent.skipIf(!built)('the single executable (dist-bin/idv)', () => {
  it('--version prints the package.json version', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    await withHome(async (home) => {
      const r = await bin(['--version'], { env: home.env });
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(`${pkg.version}\n`);
      expect(r.exitCode).toBe(0);
    });
  });

  it('--help, emails --help, auth login --help, help, bare idv: what node bin/idv.js prints, the docs named by their home page, no placeholder', async () => {
    const homepage = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).homepage as string;
    await withHome(async (home) => {
      for (const args of [['--help'], ['emails', '--help'], ['auth', 'login', '--help'], ['help'], []]) {
        const [b, n] = await Promise.all([bin(args, { env: home.env }), idv(args, { env: home.env })]);
        expect(n.stdout + n.stderr).toContain('Usage: idv');
        // docs/ does not travel with the executable: its help points at the home page instead.
        expect(b.stdout).toBe(n.stdout.split(join(ROOT, 'docs', 'cli.md')).join(homepage));
        expect(b.stderr).toBe(n.stderr.split(join(ROOT, 'docs', 'cli.md')).join(homepage));
        expect(b.stdout + b.stderr).not.toMatch(/@[A-Z]+@/);
        expect(b.exitCode).toBe(n.exitCode);
      }
    });
  });

  it('emails FILE --sandbox: the exact CSV, the summary, exit 0; the cache untouched', async () => {
    await withHome(async (home) => {
      const list = join(home.dir, 'list.txt');
      await writeFile(list, LIST);
      const r = await bin(['emails', list, '--sandbox'], { env: home.env });
      expect(r.stdout).toBe(CSV);
      expect(r.stderr).toMatch(new RegExp(`^7 records in ${ELAPSED}\\n {2}ok {10}3 {3}42\\.9%\\n {2}alias {7}1 {3}14\\.3%\\n {2}disposable {2}1 {3}14\\.3%\\n {2}fake {8}1 {3}14\\.3%\\n {2}invalid {5}1 {3}14\\.3%\\n5 items sent in 1 request\\n$`)); // --sandbox: no cache, so no word of it
      expect(r.exitCode).toBe(0);
      expect(existsSync(home.env.XDG_CACHE_HOME!)).toBe(false);
    });
  });

  it('emails on fixtures (newsletter.csv, crm.csv, domains.txt) with --sandbox: the same bytes as node bin/idv.js', async () => {
    await withHome(async (home) => {
      for (const [kind, file] of [['emails', 'newsletter.csv'], ['emails', 'crm.csv'], ['domains', 'domains.txt']] as const) {
        const args = [kind, fixture(file), '--sandbox', '--keep-columns', '-q'];
        const [b, n] = await Promise.all([bin(args, { env: home.env }), idv(args, { env: home.env })]);
        expect(n.exitCode).toBe(0);
        expect(n.stdout.length).toBeGreaterThan(100);
        expect(b.stdout).toBe(n.stdout);
        expect(b.exitCode).toBe(0);
      }
    });
  });

  it('emails - with a key against a loopback sandbox: csv, then json from the cache with nothing sent again', async () => {
    await withHome(async (home) => {
      const { sb, env } = await sandbox({}, home);
      try {
        const r = await bin(['emails', '-'], { env, input: LIST });
        expect(r.stdout).toBe(CSV);
        expect(r.exitCode).toBe(0);
        expect(sentBatches(sb)).toEqual([SENT]);
        expect(sb.requests.map((q) => [q.method, q.path, q.authorization, q.contentType])).toEqual([
          ['POST', '/emails/validate', `Bearer ${sb.key}`, 'application/json'],
        ]);
        // stderr is not a terminal: the summary fits 80 columns
        expect(r.stderr).toContain('0 items from the cache · 5 items sent in 1 request\nquota left 995 of 1,000');

        const j = await bin(['emails', '-', '-f', 'json'], { env, input: LIST });
        expect(JSON.parse(j.stdout)).toEqual(RESULTS.map(([email, status]) => ({ email, status })));
        expect(j.exitCode).toBe(0);
        expect(j.stderr).toContain('5 items from the cache · nothing sent');
        expect(sb.requests).toHaveLength(1);
      } finally {
        await sb.close();
      }
    });
  });

  it('quota used up: exit 4, validated items written, the rest quota_exceeded, nothing sent after', async () => {
    await withHome(async (home) => {
      const { sb, env } = await sandbox({ quota: 2 }, home);
      try {
        const r = await bin(['emails', '-', '--batch-size', '2', '--concurrency', '1', '--no-cache'], { env, input: LIST });
        expect(r.exitCode).toBe(4);
        expect(r.stdout).toBe(
          'email,status\nada@example.com,ok\nbob+news@example.com,alias\ncy@mailinator.com,quota_exceeded\n' +
            'dee@example.invalid,quota_exceeded\nnot an address,invalid\nADA@EXAMPLE.COM,quota_exceeded\nada@Example.com,ok\n',
        );
        expect(sentBatches(sb)).toEqual([SENT.slice(0, 2)]);
        expect(r.stderr).toMatch(/quota/i);
      } finally {
        await sb.close();
      }
    });
  });

  it('no key: exit 3 with the hint, nothing sent', async () => {
    await withHome(async (home) => {
      const { sb, env } = await sandbox({}, home);
      try {
        const { IDV_API_KEY: _k, ...noKey } = env;
        const r = await bin(['emails', '-'], { env: noKey, input: LIST });
        expect(r.stderr).toBe(`idv: No API key found: IDV_API_KEY is not set and no key is stored in ${join(home.env.XDG_CONFIG_HOME!, 'idv', 'config.json')}; store one with idv auth login, or export IDV_API_KEY=<key>.\n`);
        expect(r.exitCode).toBe(3);
        expect(r.stdout).toBe('');
        expect(sentItems(sb)).toEqual([]);
      } finally {
        await sb.close();
      }
    });
  });
});
