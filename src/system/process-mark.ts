// Which process a run's heartbeat (or temporary file) belongs to, and whether it still runs, on every system
// (docs/choices.md, "Who is alive"): where /proc tells, by pid namespace and start time (a reused pid is told
// apart, another namespace is out of sight); elsewhere by process.kill(pid, 0), the mark naming the host (a run
// on another machine sharing the folder is out of sight), a reused pid then taken for alive, never for dead.
// The process table (pid, kill) is injected, so that tests take each branch on any system.
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/** A process: its id, its pid namespace (`pid:[…]`) or host (`host:[…]`), and when it started (a reused id differs). */
export interface ProcessMark {
  pid: number;
  namespace: string;
  started: string;
}

/** What this module asks of the system: this process's pid, a signal 0 to another, /proc (when there is one), the host's name. */
export interface ProcessTable {
  pid: number;
  /** process.kill(pid, 0): throws ESRCH when no such process runs, EPERM when it runs as another user. */
  signal0(pid: number): void;
  /** Whether to look in /proc at all (macOS and Windows have none: nothing is lost by looking). */
  proc: boolean;
  hostname(): string;
  /** When this process started, in milliseconds since the epoch. */
  startedMs: number;
}

export const HOST: ProcessTable = {
  pid: process.pid,
  signal0: (pid) => void process.kill(pid, 0),
  proc: true,
  hostname,
  startedMs: Math.floor(performance.timeOrigin),
};

/** This process's mark: from /proc where it tells, else by pid and host; null where neither can be had. */
export function selfMark(table: ProcessTable = HOST): ProcessMark | null {
  return (table.proc ? procMark() : null) ?? hostMark(table);
}

function procMark(): ProcessMark | null {
  try {
    const pid = Number(readlinkSync('/proc/self'));
    const namespace = readlinkSync('/proc/self/ns/pid');
    const started = startTime(pid);
    return Number.isInteger(pid) && pid > 0 && started !== null ? { pid, namespace, started } : null;
  } catch {
    return null;
  }
}

function hostMark(table: ProcessTable): ProcessMark | null {
  try {
    return { pid: table.pid, namespace: `host:[${fnv1a(table.hostname())}]`, started: String(table.startedMs) };
  } catch {
    return null;
  }
}

export function markText(mark: ProcessMark): string {
  return `${mark.pid} ${mark.namespace} ${mark.started}\n`;
}

export function parseMark(text: string): ProcessMark | null {
  const m = /^(\d+) (\S+) (\d+)\n$/.exec(text);
  return m ? { pid: Number(m[1]), namespace: m[2]!, started: m[3]! } : null;
}

/** Whether the marked process still runs: true or false when this process can see it, null when it cannot tell. */
export function markAlive(mark: ProcessMark, self: ProcessMark | null, table: ProcessTable = HOST): boolean | null {
  if (self === null || mark.namespace !== self.namespace) return null;
  if (mark.namespace.startsWith('pid:')) return startTime(mark.pid) === mark.started;
  if (mark.pid === self.pid) return mark.started === self.started; // this process's pid, once another's
  try {
    table.signal0(mark.pid);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ESRCH' ? false : code === 'EPERM' ? true : null;
  }
}

/** The start time of a process that runs (not a zombie), from /proc/<pid>/stat; null when there is none. */
function startTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // After the command name, in parentheses that it may itself hold: the state (field 3), … starttime (field 22).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X') return null;
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/** A host's name as digits (32-bit FNV-1a): temporary files' names carry a mark's namespace as digits. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
