#!/usr/bin/env node
// `npm run bench`: start-up, throughput against the fastest hand-written client, peak memory,
// cached rerun, a small run with a big cache, a live stream's line-to-result time and memory, a 32 MB line
// against 32 MB of lines, a 1,000,000-row workbook, and a 10,000,000-line dry run.
// Plain Node ESM, built-ins only. Run after `npm run build` (the npm script does it).
//
//   node bench/run.mjs           full run (~1.5 min on an idle 2-core machine; must stay under 10)
//   node bench/run.mjs --quick   smaller sizes (~15 s): a smoke check that everything works; its
//                                figures are dominated by start-up and are not the ones to quote
//   node bench/run.mjs --runs 7  more interleaved throughput runs per client (default 5): the
//                                ratio moves by ~±10% from run to run on a 2-core machine
//   node bench/run.mjs --only streams,workbooks,bigDryRun   those sections alone (library: the library against the CLI)
//
// The sandbox runs as a separate process (`idv sandbox`), so its CPU is never counted against the
// client. Every child gets a throw-away HOME and XDG_* folders: the real config and cache are never
// read or written. Generated lists and outputs go to bench/out/ (gitignored).
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync, writeSync, renameSync } from 'node:fs';
import { tmpdir, cpus, platform, arch, loadavg } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'bench', 'out');
const IDV = join(ROOT, 'bin', 'idv.js');
// The yardstick: node:http keep-alive, batches of 100, 4 in flight, CSV out, no checks. The fetch
// client is kept as a second, weaker line.
const MINIMAL = join(ROOT, 'bench', 'minimal-http-client.mjs');
const MINIMAL_FETCH = join(ROOT, 'bench', 'minimal-client.mjs');
// A Node program using the library (validateEmails) on the same list as the CLI.
const LIBRARY = join(ROOT, 'bench', 'library-client.mjs');
const NODE = process.execPath;
const QUICK = process.argv.includes('--quick');
const onlyArg = process.argv.indexOf('--only');
const ONLY = onlyArg > 0 ? process.argv[onlyArg + 1].split(',') : null;
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : NaN;
if (runsArg > 0 && !(Number.isInteger(RUNS) && RUNS > 0)) {
  console.error('bench: --runs takes a whole number of throughput runs per client, e.g. --runs 5');
  process.exit(2);
}

const CFG = QUICK
  ? { startRuns: 5, tpSize: 20_000, tpRuns: 2, memSizes: [1_000, 10_000, 100_000], cachedSize: 100_000, cachedRuns: 1 }
  : { startRuns: 21, tpSize: 200_000, tpRuns: 5, memSizes: [10_000, 100_000, 1_000_000], cachedSize: 1_000_000, cachedRuns: 3 };
if (!Number.isNaN(RUNS)) CFG.tpRuns = RUNS;
const CHILD_TIMEOUT_MS = QUICK ? 60_000 : 180_000;
const KEY = 'sk_bench_0123456789abcdef';
const TARGET = { version: 1.1, help: 1.3, smallRun: 1.5, throughput: 1.3, library: 1.1, rssMB: 200, cached: 1.8, bigCache: 1.2 };

if (!existsSync(join(ROOT, 'dist', 'cli.cjs'))) {
  console.error('bench: dist/cli.cjs is missing; run `npm run build` first (or `npm run bench`).');
  process.exit(2);
}
mkdirSync(OUT, { recursive: true });

// --- isolated environment ------------------------------------------------------------------------
const TMP = mkdtempSync(join(tmpdir(), 'idv-bench-'));
const baseEnv = { ...process.env };
for (const k of Object.keys(baseEnv)) {
  // NODE_* goes too: NODE_OPTIONS would change what is measured, and NODE_EXTRA_CA_CERTS (set on some
  // machines) makes every node start-up parse a CA bundle (~50 ms here), which would hide idv's own cost.
  if (/^(IDV_|XDG_)/.test(k) || /^(https?_proxy|no_proxy|all_proxy)$/i.test(k) || k === 'FORCE_COLOR' || k.startsWith('NODE_')) {
    delete baseEnv[k];
  }
}
Object.assign(baseEnv, {
  HOME: join(TMP, 'home'),
  XDG_CONFIG_HOME: join(TMP, 'config'),
  XDG_CACHE_HOME: join(TMP, 'cache'),
  XDG_DATA_HOME: join(TMP, 'data'),
  XDG_STATE_HOME: join(TMP, 'state'),
  NO_COLOR: '1',
});
for (const d of ['home', 'config', 'cache', 'data', 'state']) mkdirSync(join(TMP, d), { recursive: true });

// --- small helpers -------------------------------------------------------------------------------
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmtMs = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);
const fmtN = (n) => n.toLocaleString('en-US');
const fmtMB = (kb) => `${(kb / 1024).toFixed(1)} MB`;
const verdict = (ok) => (ok ? 'OK' : 'MISS');
const pad = (s, n) => String(s).padEnd(n);
const now = () => Number(process.hrtime.bigint()) / 1e6;
function line(text) {
  process.stdout.write(text + '\n');
}
function note(text) {
  process.stderr.write(`  · ${text}\n`);
}

/**
 * Run a child to completion. stdout: 'ignore' or a file path; stderr is collected (capped) and
 * lines matching `countPrefix` are counted as they stream. Returns { ms, code, signal, stderr, counted }.
 */
function runChild(cmd, args, { env = baseEnv, stdout = 'ignore', countPrefix, timeoutMs = CHILD_TIMEOUT_MS, onSpawn } = {}) {
  return new Promise((resolvePromise) => {
    const outFd = stdout === 'ignore' ? 'ignore' : openSync(stdout, 'w');
    const t0 = now();
    const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', outFd, 'pipe'] });
    onSpawn?.(child);
    let stderr = '';
    let partial = '';
    let counted = 0;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      if (stderr.length < 64 * 1024) stderr += chunk;
      if (countPrefix) {
        const parts = (partial + chunk).split('\n');
        partial = parts.pop();
        for (const p of parts) if (p.startsWith(countPrefix)) counted++;
      }
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code, signal) => {
      const ms = now() - t0;
      clearTimeout(timer);
      if (outFd !== 'ignore') closeSync(outFd);
      if (countPrefix && partial.startsWith(countPrefix)) counted++;
      resolvePromise({ ms, code, signal, stderr, counted, timedOut });
    });
  });
}

function describeFailure(r) {
  if (r.timedOut) return `timed out after ${fmtMs(CHILD_TIMEOUT_MS)}`;
  const tail = r.stderr.trim().split('\n').slice(-2).join(' | ');
  return `exit ${r.code ?? r.signal}${tail ? `: ${tail}` : ''}`;
}

/** Number of '\n' in a file, streamed. */
async function countLines(path) {
  let n = 0;
  for await (const buf of createReadStream(path)) {
    for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) n++;
  }
  return n;
}

// --- data ----------------------------------------------------------------------------------------
// Deterministic lists of unique addresses with a realistic mix: mostly ordinary company and webmail
// domains, some plus-aliases, disposable and fake domains (the sandbox's rules), so idv's per-item
// work (checks, dedup, statuses) is exercised. Unique because the local part carries the index.
const FIRST = ['ann', 'bob', 'carla', 'dmitri', 'eva', 'farid', 'grace', 'hugo', 'ines', 'jon', 'kemal', 'lena', 'marta', 'nils', 'olga', 'pedro'];
const LAST = ['smith', 'jones', 'garcia', 'müller', 'rossi', 'dubois', 'novak', 'kim', 'silva', 'ivanova', 'tanaka', 'nguyen'];
const WEBMAIL = ['gmail.com', 'outlook.com', 'yahoo.com', 'proton.me', 'example.com', 'icloud.com'];
const DISPOSABLE = ['mailinator.com', 'yopmail.com', 'guerrillamail.com', 'maildrop.cc'];
const FAKE = ['fake.com', 'nowhere.org', 'shop.test', 'test.com'];

function dataFile(n) {
  const path = join(OUT, `emails-v1-${n}.txt`);
  if (existsSync(path)) return path;
  let seed = 0x2545f491;
  const rnd = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed;
  };
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w');
  let chunk = [];
  for (let i = 0; i < n; i++) {
    const r = rnd();
    const first = FIRST[r % FIRST.length];
    const last = LAST[(r >>> 8) % LAST.length];
    const kind = (r >>> 16) % 100;
    let domain;
    if (kind < 4) domain = DISPOSABLE[r % DISPOSABLE.length];
    else if (kind < 7) domain = FAKE[r % FAKE.length];
    else if (kind < 40) domain = WEBMAIL[r % WEBMAIL.length];
    else domain = `company${(r >>> 4) % 5000}.${kind % 3 === 0 ? 'org' : 'com'}`;
    const local = kind >= 90 ? `${first}.${last}${i}+news` : `${first}.${last}${i}`;
    chunk.push(`${local}@${domain}`);
    if (chunk.length === 10_000) {
      writeSync(fd, chunk.join('\n') + '\n');
      chunk = [];
    }
  }
  if (chunk.length) writeSync(fd, chunk.join('\n') + '\n');
  closeSync(fd);
  renameSync(tmp, path);
  return path;
}

// --- the sandbox, as its own process ------------------------------------------------------------
const live = new Set();
function killAll() {
  for (const c of live) {
    try {
      c.kill('SIGTERM');
    } catch {}
  }
}
process.on('exit', () => {
  killAll();
  rmSync(TMP, { recursive: true, force: true });
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(sig === 'SIGINT' ? 130 : 143));

async function startSandbox() {
  const child = spawn(NODE, [IDV, 'sandbox', '--port', '0', '--quota', '0', '--key', KEY], {
    cwd: ROOT,
    env: baseEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let errText = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => (errText += d));
  const url = await new Promise((res, rej) => {
    let text = '';
    const timer = setTimeout(() => rej(new Error(`sandbox did not print its URL within 15 s: ${errText}`)), 15_000);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d) => {
      text += d;
      const m = /listening on (http:\/\/\S+)/.exec(text);
      if (m) {
        clearTimeout(timer);
        res(m[1]);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`sandbox exited (${code}) before printing its URL: ${errText}`));
    });
  });
  child.stdout.resume();
  return {
    url,
    async stop() {
      live.delete(child);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await gone;
      clearTimeout(t);
    },
  };
}

// A fresh sandbox per section, so that no section's connections or garbage carry into the next.
async function withSandbox(fn) {
  const sb = await startSandbox();
  try {
    return await fn(sb.url);
  } finally {
    await sb.stop();
  }
}

const idvEnv = (url, extra = {}) => ({ ...baseEnv, IDV_BASE_URL: url, IDV_API_KEY: KEY, ...extra });
const idvEmailsArgs = (file, more = []) => [IDV, 'emails', file, '--no-cache', '--batch-size', '100', '--concurrency', '4', '-q', '-f', 'csv', ...more];

// --- peak RSS --------------------------------------------------------------------------------------
const HAVE_TIME = (() => {
  if (platform() !== 'linux' || !existsSync('/usr/bin/time')) return false;
  const f = join(TMP, 'time-probe');
  const r = spawnSync('/usr/bin/time', ['-f', '%M', '-o', f, NODE, '-e', '0'], { stdio: 'ignore' });
  return r.status === 0 && existsSync(f) && /^\d+\s*$/m.test(readFileSync(f, 'utf8'));
})();

/**
 * Run `node ARGS` and measure it: wall time (ms, from here), and when GNU time is usable its CPU
 * time (user + sys, ms) and peak RSS (KB); without it, peak RSS from VmHWM polled every 50 ms.
 */
async function runMeasured(args, opts) {
  if (HAVE_TIME) {
    const f = join(TMP, `time-${process.hrtime.bigint()}`);
    const r = await runChild('/usr/bin/time', ['-f', '%U %S %M', '-o', f, NODE, ...args], opts);
    const m = existsSync(f) ? /([\d.]+) ([\d.]+) (\d+)\s*$/.exec(readFileSync(f, 'utf8').trim()) : null;
    return { ...r, cpuMs: m ? (Number(m[1]) + Number(m[2])) * 1000 : NaN, rssKB: m ? Number(m[3]) : NaN };
  }
  let hwm = NaN;
  let timer;
  const r = await runChild(NODE, args, {
    ...opts,
    onSpawn(child) {
      timer = setInterval(() => {
        try {
          const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
          if (m) hwm = Number.isNaN(hwm) ? Number(m[1]) : Math.max(hwm, Number(m[1]));
        } catch {}
      }, 50);
    },
  });
  clearInterval(timer);
  return { ...r, cpuMs: NaN, rssKB: hwm };
}
const fmtCpu = (ms) => (Number.isNaN(ms) ? '' : `, CPU ${fmtMs(ms)}`);

// --- sections --------------------------------------------------------------------------------------
async function startup() {
  const cmds = [
    ['node -e 0', [NODE, ['-e', '0']]],
    ['idv --version', [NODE, [IDV, '--version']]],
    ['idv emails --help', [NODE, [IDV, 'emails', '--help']]],
  ];
  const times = timeRounds(cmds, CFG.startRuns, baseEnv);
  const base = median(times[0]);
  line(`start-up     ${pad('node -e 0', 20)} ${pad(fmtMs(base), 9)} (median of ${CFG.startRuns})`);
  const targets = [null, TARGET.version, TARGET.help];
  for (let i = 1; i < cmds.length; i++) {
    const m = median(times[i]);
    const ratio = m / base;
    line(`start-up     ${pad(cmds[i][0], 20)} ${pad(fmtMs(m), 9)} ${ratio.toFixed(2)}× node    target ≤ ${targets[i]}×  ${verdict(ratio <= targets[i])}`);
  }
  // A real small run: 3 addresses against a running service, idv against the hand-written client.
  const three = join(OUT, 'three.txt');
  writeFileSync(three, 'ann.smith@example.com\nbob.jones@gmail.com\ncarla+news@outlook.com\n');
  await withSandbox(async (url) => {
    const small = [
      ['minimal (node:http)', [NODE, [MINIMAL, three]], { ...baseEnv, BASE: url, KEY }],
      ['idv emails (3 items)', [NODE, [IDV, 'emails', three, '--no-cache', '-q']], idvEnv(url)],
    ];
    const t = timeRounds(small, CFG.startRuns);
    const [mm, mi] = [median(t[0]), median(t[1])];
    line(`start-up     ${pad('minimal, 3 items', 20)} ${pad(fmtMs(mm), 9)} (node:http client, a running sandbox)`);
    line(`start-up     ${pad('idv, 3 items', 20)} ${pad(fmtMs(mi), 9)} ${(mi / mm).toFixed(2)}× minimal target ≤ ${TARGET.smallRun}×  ${verdict(mi / mm <= TARGET.smallRun)}`);
  });
}

/** Run each command `runs` times (after one uncounted round that warms the file-system cache), interleaved; their times. */
function timeRounds(cmds, runs, env) {
  const times = cmds.map(() => []);
  for (let round = -1; round < runs; round++) {
    cmds.forEach(([name, [cmd, args], cmdEnv], i) => {
      const t0 = now();
      const r = spawnSync(cmd, args, { cwd: ROOT, env: cmdEnv ?? env, stdio: 'ignore' });
      const ms = now() - t0;
      if (r.status !== 0) throw new Error(`${name} exited ${r.status}`);
      if (round >= 0) times[i].push(ms);
    });
  }
  return times;
}

async function throughput() {
  const n = CFG.tpSize;
  const file = dataFile(n);
  const warm = dataFile(Math.min(10_000, n));
  await withSandbox(async (url) => {
    const clientEnv = { ...baseEnv, BASE: url, KEY };
    const clients = {
      idv: { args: (f) => idvEmailsArgs(f), env: idvEnv(url) },
      minimal: { args: (f) => [MINIMAL, f], env: clientEnv },
      fetch: { args: (f) => [MINIMAL_FETCH, f], env: clientEnv },
    };
    const names = Object.keys(clients);
    const out = (who) => join(OUT, `${who}-${n}.csv`);
    // warm the server's JIT with every client before timing
    for (const who of names) await runChild(NODE, clients[who].args(warm), { env: clients[who].env });
    const t = {};
    const cpu = {};
    const rss = {};
    for (const who of names) [t[who], cpu[who], rss[who]] = [[], [], []];
    for (let i = 0; i < CFG.tpRuns; i++) {
      // rotate which goes first, so none always runs on a "fresher" server
      const order = names.map((_, k) => names[(k + i) % names.length]);
      for (const who of order) {
        const r = await runMeasured(clients[who].args(file), { env: clients[who].env, stdout: out(who) });
        if (r.code !== 0) {
          line(`throughput   ${who} failed: ${describeFailure(r)}`);
          return;
        }
        t[who].push(r.ms);
        cpu[who].push(r.cpuMs);
        rss[who].push(r.rssKB);
        note(`throughput run ${i + 1}: ${pad(who, 7)} ${fmtMs(r.ms)}${fmtCpu(r.cpuMs)}, peak RSS ${fmtMB(r.rssKB)}`);
      }
    }
    for (const who of names) {
      const lines = await countLines(out(who));
      if (lines !== n + 1) note(`warning: ${who} wrote ${lines} lines for ${n} addresses (expected ${n + 1})`);
    }
    const rate = (ms) => `${fmtN(Math.round(n / (ms / 1000)))}/s`;
    const [mi, mm, mf] = names.map((who) => median(t[who]));
    line(
      `throughput   ${fmtN(n)} unique addresses, batch 100, concurrency 4 (medians of ${CFG.tpRuns}, interleaved): ` +
        `idv ${fmtMs(mi)} (${rate(mi)}) · minimal node:http ${fmtMs(mm)} (${rate(mm)})  ratio ${(mi / mm).toFixed(2)}  ` +
        `target ≤ ${TARGET.throughput.toFixed(1)}  ${verdict(mi / mm <= TARGET.throughput)}`,
    );
    line(`throughput   second yardstick: minimal fetch client ${fmtMs(mf)} (${rate(mf)})  ratio idv/fetch ${(mi / mf).toFixed(2)}`);
    if (HAVE_TIME) {
      const per = (who) => `${who} ${fmtMs(median(cpu[who]))} (${((median(cpu[who]) * 1000) / n).toFixed(1)} µs/item)`;
      line(
        `throughput   client CPU (user+sys): ${names.map(per).join(' · ')}  ratio idv/minimal ${(median(cpu.idv) / median(cpu.minimal)).toFixed(2)}  ` +
          `(peak RSS ${names.map((who) => `${who} ${fmtMB(median(rss[who]))}`).join(' · ')}; informative, less sensitive to a busy machine)`,
      );
    }
  });
}

// The library against the CLI on the same list: the engine is the same, so a program using it should cost no
// more than the command (target: within 1.1× of the CLI's time).
async function library() {
  const n = CFG.tpSize;
  const file = dataFile(n);
  const warm = dataFile(Math.min(10_000, n));
  await withSandbox(async (url) => {
    const clients = { cli: idvEmailsArgs, library: (f) => [LIBRARY, f] };
    const names = Object.keys(clients);
    const out = (who) => join(OUT, `${who}-library-${n}.csv`);
    for (const who of names) await runChild(NODE, clients[who](warm), { env: idvEnv(url) });
    const t = { cli: [], library: [] };
    const cpu = { cli: [], library: [] };
    for (let i = 0; i < CFG.tpRuns; i++) {
      for (const who of i % 2 ? [...names].reverse() : names) {
        const r = await runMeasured(clients[who](file), { env: idvEnv(url), stdout: out(who) });
        if (r.code !== 0) {
          line(`library      ${who} failed: ${describeFailure(r)}`);
          return;
        }
        t[who].push(r.ms);
        cpu[who].push(r.cpuMs);
        note(`library run ${i + 1}: ${pad(who, 7)} ${fmtMs(r.ms)}${fmtCpu(r.cpuMs)}`);
      }
    }
    if (readFileSync(out('cli'), 'utf8') !== readFileSync(out('library'), 'utf8')) note('warning: the library wrote other records than the CLI');
    const [mc, ml] = [median(t.cli), median(t.library)];
    const cpuText = HAVE_TIME ? `; CPU library ${fmtMs(median(cpu.library))} · CLI ${fmtMs(median(cpu.cli))}` : '';
    line(
      `library      ${fmtN(n)} unique addresses, validateEmails() against idv emails (medians of ${CFG.tpRuns}, interleaved): ` +
        `library ${fmtMs(ml)} · CLI ${fmtMs(mc)}  ratio ${(ml / mc).toFixed(2)}  target ≤ ${TARGET.library}  ${verdict(ml / mc <= TARGET.library)}${cpuText}`,
    );
  });
}

async function memory() {
  const results = [];
  for (const n of CFG.memSizes) {
    const file = dataFile(n);
    await withSandbox(async (url) => {
      const r = await runMeasured(idvEmailsArgs(file), { env: idvEnv(url), stdout: 'ignore' /* /dev/null */ });
      if (r.code !== 0) {
        line(`memory       ${pad(fmtN(n) + ' lines', 16)} failed: ${describeFailure(r)}`);
        return;
      }
      results.push([n, r.rssKB]);
      const last = n === CFG.memSizes[CFG.memSizes.length - 1];
      const prev = results.length > 1 ? results[results.length - 2] : null;
      const growth = prev ? `  +${(((r.rssKB - prev[1]) * 1024) / (n - prev[0])).toFixed(0)} B/line since ${fmtN(prev[0])}` : '';
      line(
        `memory       ${pad(fmtN(n) + ' lines', 16)} peak RSS ${pad(fmtMB(r.rssKB), 10)} (${fmtMs(r.ms)}${fmtCpu(r.cpuMs)})${growth}` +
          (last && !QUICK ? `  target ≤ ${TARGET.rssMB} MB  ${verdict(r.rssKB / 1024 <= TARGET.rssMB)}` : ''),
      );
    });
  }
  // For scale: the same list through --dry-run, which holds only the reader and the dedup index.
  const big = CFG.memSizes[CFG.memSizes.length - 1];
  const d = await runMeasured([IDV, 'emails', dataFile(big), '--dry-run', '--no-cache', '-f', 'json'], {});
  if (d.code === 0) {
    line(`memory       ${pad(fmtN(big) + ' lines', 16)} peak RSS ${pad(fmtMB(d.rssKB), 10)} with --dry-run (reader + dedup index only, no HTTP, no output)`);
  }
  if (!HAVE_TIME) note('peak RSS from /proc/PID/status VmHWM polled every 50 ms (/usr/bin/time not usable)');
}

// The cache the cached rerun fills (CFG.cachedSize results), which the small run with a big cache reuses.
const BIG_CACHE = join(TMP, 'cache-rerun');

async function cachedRerun() {
  const n = CFG.cachedSize;
  const file = dataFile(n);
  const cacheHome = BIG_CACHE;
  mkdirSync(cacheHome, { recursive: true });
  await withSandbox(async (url) => {
    const env = idvEnv(url, { XDG_CACHE_HOME: cacheHome });
    const args = (more) => [IDV, 'emails', file, '--batch-size', '100', '--concurrency', '4', '-f', 'csv', ...more];
    const fill = await runMeasured(args(['-q']), { env });
    if (fill.code !== 0) {
      line(`cached rerun ${fmtN(n)} lines: filling the cache failed: ${describeFailure(fill)}`);
      return;
    }
    const rerun = [];
    const parse = [];
    const rerunCpu = [];
    const parseCpu = [];
    let rerunRss = 0;
    let requests = 0;
    for (let i = 0; i < CFG.cachedRuns; i++) {
      const r = await runMeasured(args(['--verbose']), { env, stdout: join(OUT, `idv-rerun-${n}.csv`), countPrefix: 'idv: POST' });
      if (r.code !== 0) {
        line(`cached rerun ${fmtN(n)} lines: rerun failed: ${describeFailure(r)}`);
        return;
      }
      rerun.push(r.ms);
      rerunCpu.push(r.cpuMs);
      rerunRss = Math.max(rerunRss, r.rssKB);
      requests = Math.max(requests, r.counted);
      const p = await runMeasured([IDV, 'emails', file, '--dry-run', '--no-cache', '-f', 'json'], { env });
      if (p.code !== 0) {
        line(`cached rerun ${fmtN(n)} lines: --dry-run failed: ${describeFailure(p)}`);
        return;
      }
      parse.push(p.ms);
      parseCpu.push(p.cpuMs);
      note(`cached run ${i + 1}: rerun ${fmtMs(r.ms)}${fmtCpu(r.cpuMs)} (${r.counted} requests), parse-only ${fmtMs(p.ms)}${fmtCpu(p.cpuMs)}`);
    }
    const rerunLines = await countLines(join(OUT, `idv-rerun-${n}.csv`));
    if (rerunLines !== n + 1) note(`warning: the rerun wrote ${rerunLines} lines for ${n} addresses (expected ${n + 1})`);
    const mr = median(rerun);
    const mp = median(parse);
    const ratio = mr / mp;
    line(
      `cached rerun ${fmtN(n)} lines: ${fmtMs(mr)}, ${requests} requests sent (target 0 ${verdict(requests === 0)}); ` +
        `parse only (--dry-run --no-cache) ${fmtMs(mp)}; ratio ${ratio.toFixed(2)}×  ` +
        `target ≤ ${TARGET.cached}×  ${verdict(ratio <= TARGET.cached)}  (cache fill run: ${fmtMs(fill.ms)}` +
        (CFG.cachedRuns > 1 ? `; medians of ${CFG.cachedRuns})` : ')'),
    );
    if (HAVE_TIME) {
      line(
        `cached rerun CPU (user+sys): rerun ${fmtMs(median(rerunCpu))} · parse only ${fmtMs(median(parseCpu))}  ` +
          `ratio ${(median(rerunCpu) / median(parseCpu)).toFixed(2)}×; peak RSS rerun ${fmtMB(rerunRss)}, fill ${fmtMB(fill.rssKB)}`,
      );
    }
  });
}

// A small run with a big cache: 10 new addresses with the cached rerun's results in the cache,
// against the same run with an empty cache. Both send their 10 (new ones each time) and keep the cache on.
async function bigCache() {
  const n = CFG.cachedSize;
  if (!existsSync(BIG_CACHE)) {
    line('small run    big cache: no cache to use (the cached rerun failed)');
    return;
  }
  const empty = join(TMP, 'cache-empty');
  await withSandbox(async (url) => {
    const runs = QUICK ? 5 : 11;
    const ms = { big: [], empty: [] };
    const rss = { big: [], empty: [] };
    for (let i = -1; i < runs; i++) {
      for (const who of i % 2 ? ['big', 'empty'] : ['empty', 'big']) {
        const file = join(OUT, `small-${who}.txt`);
        writeFileSync(file, Array.from({ length: 10 }, (_, k) => `new.${who}.${i + 1}.${k}@example.org`).join('\n') + '\n');
        rmSync(empty, { recursive: true, force: true });
        mkdirSync(empty, { recursive: true });
        const env = idvEnv(url, { XDG_CACHE_HOME: who === 'big' ? BIG_CACHE : empty });
        const r = await runMeasured([IDV, 'emails', file, '-q', '-f', 'csv'], { env });
        if (r.code !== 0) {
          line(`small run    ${who} cache failed: ${describeFailure(r)}`);
          return;
        }
        if (i < 0) continue; // warm-up
        ms[who].push(r.ms);
        rss[who].push(r.rssKB);
      }
    }
    const [tb, te] = [median(ms.big), median(ms.empty)];
    const [rb, re] = [median(rss.big), median(rss.empty)];
    line(
      `small run    10 new items, cache of ${fmtN(n)} results: ${fmtMs(tb)}, peak RSS ${fmtMB(rb)} · empty cache ${fmtMs(te)}, ${fmtMB(re)} ` +
        `(medians of ${runs}, interleaved)  ratio time ${(tb / te).toFixed(2)}× RSS ${(rb / re).toFixed(2)}×  ` +
        `target ≤ ${TARGET.bigCache}×  ${verdict(tb / te <= TARGET.bigCache && rb / re <= TARGET.bigCache)}`,
    );
  });
}

// The HTTP layer alone (informative): how idv's choice of node:http over undici and fetch was made.
async function httpLayer() {
  const n = QUICK ? 500 : 2_000;
  await withSandbox(async (url) => {
    const env = { ...baseEnv, BASE: url, KEY };
    const layers = ['node-http', 'undici-pool', 'fetch'];
    const ms = layers.map(() => []);
    const rss = layers.map(() => []);
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < layers.length; i++) {
        const r = await runMeasured([join(ROOT, 'bench', 'http-layer.mjs'), layers[i], String(n)], { env });
        if (r.code !== 0) throw new Error(`${layers[i]}: ${describeFailure(r)}`);
        ms[i].push(r.ms);
        rss[i].push(r.rssKB);
      }
    }
    line(
      `http layer   ${fmtN(n)} requests of 100 items, 4 in flight (medians of 3): ` +
        layers.map((l, i) => `${l} ${fmtMs(median(ms[i]))}, ${fmtMB(median(rss[i]))}`).join(' · ') +
        '  (idv uses node-http; undici only through a proxy)',
    );
  });
}

// A live stream on standard input: lines written at a steady rate into idv's stdin through a pipe,
// each result's arrival held against its line's: the median and the worst, and peak memory over a longer run.
async function streams() {
  await withSandbox(async (url) => {
    await runChild(NODE, idvEmailsArgs(dataFile(Math.min(10_000, CFG.tpSize))), { env: idvEnv(url) }); // warm the server's JIT
    const lines = QUICK ? 30 : 100;
    const r = await streamed(url, lines, 100);
    if (r.error) {
      line(`stream       failed: ${r.error}`);
      return;
    }
    // The first line also waits for the layout (a pause of 200 ms) and the run's first connection: said apart.
    const worst = Math.max(...r.delays.slice(1));
    line(
      `stream       ${lines} lines at 10 a second through a pipe, ndjson: line to result median ${fmtMs(median(r.delays))}, worst ${fmtMs(worst)}, ` +
        `first line ${fmtMs(r.delays[0])} (${r.requests} requests, the service answering in ${fmtMs(r.answerMs)})  ` +
        `target ≤ 300 ms + the service's answer  ${verdict(Math.max(worst, r.delays[0]) <= 300 + r.answerMs)}`,
    );
    const seconds = QUICK ? 10 : 60;
    const m = await streamed(url, seconds * 100, 10, true);
    if (m.error) {
      line(`stream       memory run failed: ${m.error}`);
      return;
    }
    line(
      `stream       ${seconds} s at 100 lines a second (all distinct): RSS ${m.rss.map(([t, kb]) => `${t} s ${fmtMB(kb)}`).join(', ')}; ` +
        `line to result median ${fmtMs(median(m.delays))}, worst ${fmtMs(Math.max(...m.delays))}`,
    );
  });
}

/**
 * idv emails - reading `count` lines written `gapMs` apart into its standard input (a pipe): each result's delay
 * after its line, the requests it made, the service's answer time (median, from --verbose), and (`rss`) its
 * resident memory every 10 seconds.
 */
function streamed(url, count, gapMs, rss = false) {
  return new Promise((resolvePromise) => {
    const child = spawn(NODE, [IDV, 'emails', '-', '--no-cache', '-f', 'ndjson', '--verbose'], { cwd: ROOT, env: idvEnv(url), stdio: ['pipe', 'pipe', 'pipe'] });
    live.add(child);
    const sentAt = [];
    const delays = [];
    const answers = [];
    const samples = [];
    let requests = 0;
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      const at = now();
      out += chunk;
      const parts = out.split('\n');
      out = parts.pop();
      for (const p of parts) {
        const m = /"email":"stream(\d+)@/.exec(p);
        if (m) delays.push(at - sentAt[Number(m[1])]);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      err += chunk;
      const parts = err.split('\n');
      err = parts.pop();
      for (const p of parts) {
        if (!p.startsWith('idv: POST')) continue;
        requests++;
        const ms = /(\d+(?:\.\d+)?) ?ms/.exec(p);
        if (ms) answers.push(Number(ms[1]));
      }
    });
    const started = now();
    let i = 0;
    let tick = null;
    // The first line once idv has started (a stream's lines come to a running program), then one every gapMs.
    setTimeout(() => (tick = setInterval(write, gapMs)), 1000);
    const write = () => {
      if (i === count) {
        clearInterval(tick);
        child.stdin.end();
        return;
      }
      sentAt[i] = now();
      child.stdin.write(`stream${i}@example${i % 50}.com\n`);
      i++;
    };
    const sampler = rss
      ? setInterval(() => {
          try {
            const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
            if (m) samples.push([Math.round((now() - started) / 1000), Number(m[1])]);
          } catch {}
        }, 10_000)
      : null;
    child.on('close', (code) => {
      live.delete(child);
      clearInterval(tick);
      if (sampler) clearInterval(sampler);
      if (code !== 0 || delays.length !== count) {
        resolvePromise({ error: `exit ${code}, ${delays.length} results of ${count}` });
        return;
      }
      resolvePromise({ delays, requests, answerMs: answers.length ? median(answers) : 0, rss: samples });
    });
  });
}

// A workbook at Excel's scale: bench/xlsx.mjs's reader and writer alone, then idv reading the same
// 1,000,000-row sheet (--dry-run: every row read, checked and counted), with its time and peak RSS.
async function workbooks() {
  const rows = QUICK ? 100_000 : 1_000_000;
  const { benchXlsx, excelShaped } = await import('./xlsx.mjs');
  await benchXlsx(rows);
  const file = join(OUT, `contacts-${rows}.xlsx`);
  if (!existsSync(file)) await excelShaped(file, rows);
  const r = await runMeasured([IDV, 'emails', file, '--dry-run', '--no-cache', '-f', 'json'], {});
  if (r.code !== 0) {
    line(`xlsx idv     ${fmtN(rows)} rows: failed: ${describeFailure(r)}`);
    return;
  }
  line(
    `xlsx idv     ${fmtN(rows)}-row workbook, --dry-run (every row read and checked): ${fmtMs(r.ms)}${fmtCpu(r.cpuMs)}, peak RSS ${fmtMB(r.rssKB)}  ` +
      `target ≤ 300 MB  ${verdict(r.rssKB / 1024 <= 300)}`,
  );
}

// A plain list far past any other section: 10,000,000 lines through --dry-run (reader, checks, dedup index).
async function bigDryRun() {
  const n = QUICK ? 1_000_000 : 10_000_000;
  const file = dataFile(n);
  const r = await runMeasured([IDV, 'emails', file, '--dry-run', '--no-cache', '-f', 'json'], { timeoutMs: 600_000 });
  if (r.code !== 0) {
    line(`dry run      ${fmtN(n)} lines: failed: ${describeFailure(r)}`);
    return;
  }
  line(`dry run      ${fmtN(n)} lines: ${fmtMs(r.ms)}${fmtCpu(r.cpuMs)}, peak RSS ${fmtMB(r.rssKB)}`);
}

// A 32 MB line without a line break against 32 MB of 1 KB lines, through --dry-run: the one line must cost about
// what reading 32 MB costs (a few times at most), never a cost that grows with the square of its length.
async function longLine() {
  const MB = 1024 * 1024;
  const size = QUICK ? 8 : 32;
  const oneLine = join(OUT, `one-line-${size}mb.txt`);
  const lines = join(OUT, `lines-${size}mb.txt`);
  if (!existsSync(oneLine)) writeFileSync(oneLine, 'a'.repeat(size * MB));
  if (!existsSync(lines)) writeFileSync(lines, ('b'.repeat(1023) + '\n').repeat(size * 1024));
  const cpu = async (file) => {
    // --max-row-size: past the 16 MiB a row holds by default
    const r = await runMeasured([IDV, 'emails', file, '--dry-run', '--no-cache', '-f', 'json', '--max-row-size', '64MiB']);
    if (r.code !== 0) throw new Error(`idv emails ${file} --dry-run: ${describeFailure(r)}`);
    return r;
  };
  const rounds = QUICK ? 1 : 3;
  const plain = [];
  const long = [];
  for (let i = 0; i < rounds; i++) {
    plain.push(await cpu(lines));
    long.push(await cpu(oneLine));
  }
  const ms = (rs) => median(rs.map((r) => (Number.isNaN(r.cpuMs) ? r.ms : r.cpuMs)));
  const what = Number.isNaN(plain[0].cpuMs) ? 'wall' : 'CPU';
  const ratio = ms(long) / ms(plain);
  line(
    `long line    one ${size} MB line ${fmtMs(ms(long))} ${what} · ${size} MB of 1 KB lines ${fmtMs(ms(plain))} ${what}; ratio ${ratio.toFixed(2)}× ` +
      `(target < 5×: ${verdict(ratio < 5)}); peak RSS ${fmtMB(median(long.map((r) => r.rssKB)))}`,
  );
}

// --- main ------------------------------------------------------------------------------------------
const started = now();
const loadStart = loadavg()[0];
// /proc/loadavg's 4th field is "runnable/total" right now; sampled to tell whether other work competed.
const runnable = [];
const sampler = setInterval(() => {
  try {
    runnable.push(Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[3].split('/')[0]));
  } catch {}
}, 500);
sampler.unref();
let commit = '';
try {
  const r = spawnSync('git', ['-C', ROOT, 'describe', '--always', '--dirty'], { encoding: 'utf8' });
  if (r.status === 0) commit = ` · idv ${r.stdout.trim()}`;
} catch {}
line(
  `idv bench${QUICK ? ' --quick' : ''} · node ${process.version} · ${platform()} ${arch()} · ` +
    `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}${commit}`,
);
note('generating lists in bench/out/ …');
if (!ONLY) for (const n of new Set([CFG.tpSize, Math.min(10_000, CFG.tpSize), ...CFG.memSizes, CFG.cachedSize])) dataFile(n);

let failed = false;
const SECTIONS = [startup, throughput, library, httpLayer, memory, cachedRerun, bigCache, streams, longLine, workbooks, bigDryRun];
for (const section of ONLY ? SECTIONS.filter((s) => ONLY.includes(s.name)) : SECTIONS) {
  try {
    await section();
  } catch (err) {
    failed = true;
    line(`${section.name}: failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
if (existsSync(join(ROOT, 'dist-bin', 'idv'))) failed = spawnSync(NODE, [join(ROOT, 'bench', 'binary.mjs'), ...(QUICK ? ['--quick'] : [])], { stdio: 'inherit' }).status !== 0 || failed; // the single executable (npm run build:binary)
clearInterval(sampler);
const meanRunnable = runnable.length ? runnable.reduce((a, b) => a + b, 0) / runnable.length : NaN;
line(
  `total bench time ${fmtMs(now() - started)}; load average before the run ${loadStart.toFixed(2)}; ` +
    `runnable tasks during the run ${Number.isNaN(meanRunnable) ? 'n/a' : meanRunnable.toFixed(1)} on average (the bench itself accounts for ~2–3)`,
);
if (loadStart > cpus().length * 0.75 || meanRunnable > 3.5) {
  line(`note: other work was running on this ${cpus().length}-CPU machine: wall times are noisy (CPU times less so); rerun on an idle machine`);
}
process.exitCode = failed ? 1 : 0;
