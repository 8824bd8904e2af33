// When a spawned idv is "loaded and waiting" (on a FIFO nobody opens, a pipe nobody reads…), seen in /proc
// rather than guessed with a fixed sleep: a sleep long enough for a loaded machine is most of such a test's
// time on a quiet one, and still too short at some load.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

/** SIGHUP, SIGINT and SIGTERM in /proc's SigCgt mask (signal n is bit n - 1): idv's handlers are installed. */
const HANDLED = (1n << 0n) | (1n << 1n) | (1n << 14n);
const POLL_MS = 50;

interface Seen {
  handled: boolean;
  asleep: boolean;
  /** CPU time of all its threads, in clock ticks. */
  cpu: number;
}

async function look(pid: number): Promise<Seen | null> {
  try {
    const [status, stat] = await Promise.all([readFile(`/proc/${pid}/status`, 'utf8'), readFile(`/proc/${pid}/stat`, 'utf8')]);
    const caught = BigInt(`0x${/^SigCgt:\s*([0-9a-f]+)/m.exec(status)![1]}`);
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // state, ppid, …: utime and stime are the 12th and 13th
    return { handled: (caught & HANDLED) === HANDLED, asleep: f[0] === 'S', cpu: Number(f[11]) + Number(f[12]) };
  } catch {
    return null; // it has exited: the caller's await of its end says how
  }
}

/**
 * Resolves once process `pid` handles the signals idv handles and has been asleep, using no CPU, for `quietMs`
 * (longer than any timer of idv's own that wakes it): it has nothing left to do but wait on what is outside
 * it. Without /proc (not Linux), after `fallbackMs`. Throws if that takes more than `timeoutMs`.
 */
export async function untilWaiting(pid: number, fallbackMs: number, { quietMs = 400, timeoutMs = 15_000 } = {}): Promise<void> {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  if (!existsSync('/proc/self/stat')) return void (await sleep(fallbackMs));
  const end = Date.now() + timeoutMs;
  let quietSince: number | null = null;
  let cpu = -1;
  for (;;) {
    const seen = await look(pid);
    if (seen === null) return;
    const now = Date.now();
    quietSince = seen.handled && seen.asleep && seen.cpu === cpu ? (quietSince ?? now) : null;
    cpu = seen.cpu;
    if (quietSince !== null && now - quietSince >= quietMs) return;
    if (now > end) throw new Error(`process ${pid} was not waiting within ${timeoutMs} ms (${JSON.stringify(seen)})`);
    await sleep(POLL_MS);
  }
}

/**
 * Resolves once process `pid` handles the signals idv handles and has used `cpuMs` of CPU time: it is loaded and
 * at work (on an input that keeps it busy far longer). Without /proc (not Linux), after `fallbackMs`. Throws if
 * that takes more than `timeoutMs`.
 */
export async function untilBusy(pid: number, cpuMs: number, fallbackMs: number, { timeoutMs = 15_000 } = {}): Promise<void> {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  if (!existsSync('/proc/self/stat')) return void (await sleep(fallbackMs));
  const end = Date.now() + timeoutMs;
  for (;;) {
    const seen = await look(pid);
    if (seen === null) return;
    if (seen.handled && seen.cpu * 10 >= cpuMs) return; // clock ticks of 10 ms
    if (Date.now() > end) throw new Error(`process ${pid} did not use ${cpuMs} ms of CPU within ${timeoutMs} ms (${JSON.stringify(seen)})`);
    await sleep(POLL_MS);
  }
}

/** Signal numbers of the signals tests send. */
const SIGNAL_NUMBER = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;

/**
 * Resolves once `signal`, sent to process `pid`, is no longer pending: delivered to it (its handler has it). A
 * second signal of the same kind sent before that would merge with the first. Without /proc, after `fallbackMs`.
 */
export async function untilDelivered(pid: number, signal: keyof typeof SIGNAL_NUMBER, fallbackMs: number, timeoutMs = 15_000): Promise<void> {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  if (!existsSync('/proc/self/status')) return void (await sleep(fallbackMs));
  const bit = 1n << BigInt(SIGNAL_NUMBER[signal] - 1);
  const end = Date.now() + timeoutMs;
  for (;;) {
    let pending: bigint;
    try {
      const status = await readFile(`/proc/${pid}/status`, 'utf8');
      pending = ['SigPnd', 'ShdPnd'].reduce((all, field) => all | BigInt(`0x${new RegExp(`^${field}:\\s*([0-9a-f]+)`, 'm').exec(status)![1]}`), 0n);
    } catch {
      return; // it has exited
    }
    if ((pending & bit) === 0n) return;
    if (Date.now() > end) throw new Error(`${signal} sent to process ${pid} was still pending after ${timeoutMs} ms`);
    await sleep(5);
  }
}
