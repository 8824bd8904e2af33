#!/usr/bin/env node
// The single executable (`npm run build:binary` → dist-bin/idv): its size, and its start-up against
// `node bin/idv.js` (it must be no slower), as the median wall time and the mean CPU time of N interleaved
// runs. bench/run.mjs calls this when the binary exists; alone: `node bench/binary.mjs [--quick] [--runs N]`.
//
// Two comparisons: with the machine's node (what a user who has Node runs), and with the Node the binary
// was built from running bin/idv.js (same V8: what the bundle and its code cache change). Every child gets
// a throw-away HOME and XDG_* folders and no NODE_* variables (NODE_OPTIONS applies to a single executable too).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'dist-bin', 'idv');
const IDV = join(ROOT, 'bin', 'idv.js');
const QUICK = process.argv.includes('--quick');
const runsAt = process.argv.indexOf('--runs');
const RUNS = runsAt > 0 ? Number(process.argv[runsAt + 1]) : QUICK ? 7 : 21;
if (!(Number.isInteger(RUNS) && RUNS > 0)) {
  console.error('bench/binary: --runs takes a whole number, e.g. --runs 21');
  process.exit(2);
}
if (!existsSync(BIN)) {
  console.error('bench/binary: dist-bin/idv is not built; run `npm run build:binary` first.');
  process.exit(2);
}
if (!existsSync(join(ROOT, 'dist', 'cli.cjs'))) {
  console.error('bench/binary: dist/cli.cjs is missing; run `npm run build` first.');
  process.exit(2);
}

const TMP = mkdtempSync(join(tmpdir(), 'idv-bench-binary-'));
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(IDV_|XDG_|NODE_)/.test(k) && k !== 'FORCE_COLOR'));
Object.assign(env, { HOME: join(TMP, 'home'), XDG_CONFIG_HOME: join(TMP, 'config'), XDG_CACHE_HOME: join(TMP, 'cache'), NO_COLOR: '1' });
mkdirSync(env.HOME, { recursive: true });
const list = join(TMP, 'one.txt');
writeFileSync(list, 'ada@example.com\n');

// Which Node the binary carries: the build writes it beside the binary.
let built = null;
try {
  built = JSON.parse(readFileSync(`${BIN}.build.json`, 'utf8'));
} catch {
  /* built by hand: compare with the machine's node only */
}
const sameNode = built?.node && existsSync(built.node) ? built.node : null;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmtMs = (ms) => `${ms.toFixed(1)} ms`;
const now = () => Number(process.hrtime.bigint()) / 1e6;
/**
 * CPU time (user + system, ms) of the children waited for so far, from /proc/self/stat (cutime, cstime):
 * steadier than wall time on a busy machine. Counted in clock ticks (10 ms), so only a mean over many runs means much.
 */
function childCpuMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /s, '').split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10; // fields 16 and 17 of proc(5), at USER_HZ = 100
  } catch {
    return NaN;
  }
}

const ALONE = 'node -e 0';
const cases = [
  [ALONE, ['-e', '0']], // Node's own start-up, the floor under each: no idv at all
  ['--version', ['--version']],
  ['emails --help', ['emails', '--help']],
  ['emails FILE --sandbox', ['emails', list, '--sandbox', '-q']],
];
const runners = [
  ['binary', (args) => [BIN, args]],
  ['node', (args) => [process.execPath, [IDV, ...args]]],
  ...(sameNode ? [['same-node', (args) => [sameNode, [IDV, ...args]]]] : []),
];
const times = new Map();
const cpu = new Map();
try {
  for (let round = -1; round < RUNS; round++) {
    // round -1 warms the file-system cache (a 100 MiB binary) and is not counted; everything interleaves
    for (const [name, args] of cases) {
      for (const [who, how] of runners) {
        if (name === ALONE && who === 'binary') continue;
        const [cmd, argv] = name === ALONE ? [how([])[0], args] : how(args);
        const c0 = childCpuMs();
        const t0 = now();
        const r = spawnSync(cmd, argv, { cwd: TMP, env, stdio: ['ignore', 'ignore', 'pipe'] });
        const ms = now() - t0;
        if (round >= 0) cpu.set(`${who} ${name}`, (cpu.get(`${who} ${name}`) ?? 0) + childCpuMs() - c0);
        if (r.status !== 0) throw new Error(`${who} ${name} exited ${r.status}: ${String(r.stderr).split('\n')[0]}`);
        if (round >= 0) times.set(`${who} ${name}`, [...(times.get(`${who} ${name}`) ?? []), ms]);
      }
    }
  }
} finally {
  rmSync(TMP, { recursive: true, force: true });
}

const mib = (statSync(BIN).size / 1024 / 1024).toFixed(1);
const inside = built ? `Node ${built.nodeVersion}${built.codeCache ? ', V8 code cache' : ', no code cache'}` : 'Node unknown';
console.log(`binary       dist-bin/idv ${mib} MiB (${inside}, linux-x64 glibc); start-up median of ${RUNS}, against node ${process.version} bin/idv.js`);
let slower = false;
for (const [name] of cases) {
  const cpuOf = (who) => fmtMs(cpu.get(`${who} ${name}`) / RUNS);
  if (name === ALONE) {
    let text = `binary       ${ALONE.padEnd(26)} node ${process.version} ${fmtMs(median(times.get(`node ${name}`)))} (CPU ${cpuOf('node')})`;
    if (sameNode) text += ` · Node ${built.nodeVersion} ${fmtMs(median(times.get(`same-node ${name}`)))} (CPU ${cpuOf('same-node')})`;
    console.log(`${text}: Node's own start-up, under every line below`);
    continue;
  }
  const b = median(times.get(`binary ${name}`));
  const n = median(times.get(`node ${name}`));
  let text =
    `binary       ${`idv ${name}`.padEnd(26)} ${fmtMs(b).padEnd(9)} node bin/idv.js ${fmtMs(n).padEnd(9)} ${(b / n).toFixed(2)}×` +
    `  (CPU ${cpuOf('binary')} / ${cpuOf('node')})`;
  if (sameNode) {
    const s = median(times.get(`same-node ${name}`));
    text += `   Node ${built.nodeVersion} bin/idv.js ${fmtMs(s)} ${(b / s).toFixed(2)}× (CPU ${cpuOf('same-node')})`;
  }
  // The verdict: CPU time (on a shared 2-core machine wall times move by ±30% from run to run), against the
  // same Node running bin/idv.js when known: what building the binary changes, not which Node is faster.
  const against = sameNode ? 'same-node' : 'node';
  const cb = cpu.get(`binary ${name}`);
  const cn = cpu.get(`${against} ${name}`);
  if (!Number.isNaN(cb) && !Number.isNaN(cn)) {
    const ok = cb <= cn * 1.05; // "no slower": within 5% (the 10 ms clock tick, spread over the runs)
    slower ||= !ok;
    text += `   target CPU ≤ ${sameNode ? `Node ${built.nodeVersion}` : 'node'} bin/idv.js  ${ok ? 'OK' : 'MISS'}`;
  }
  console.log(text);
}
process.exitCode = slower ? 1 : 0;
