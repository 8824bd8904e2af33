// Which process a run's heartbeat belongs to, where the system can tell (Linux's /proc): a run killed
// outright is known dead at once, and a live run is never taken for dead only because a loaded machine let
// its heartbeat lag. Elsewhere (another pid namespace, as a container sharing the folder; no /proc) the
// heartbeat's age alone decides.
import { readFileSync, readlinkSync } from 'node:fs';

/** A process: its id, its pid namespace, and when it started (ticks since boot: a reused id differs). */
export interface ProcessMark {
  pid: number;
  namespace: string;
  started: string;
}

/** This process's mark; null where /proc cannot tell. */
export function selfMark(): ProcessMark | null {
  try {
    const pid = Number(readlinkSync('/proc/self'));
    const namespace = readlinkSync('/proc/self/ns/pid');
    const started = startTime(pid);
    return Number.isInteger(pid) && pid > 0 && started !== null ? { pid, namespace, started } : null;
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
export function markAlive(mark: ProcessMark, self: ProcessMark | null): boolean | null {
  if (self === null || mark.namespace !== self.namespace) return null;
  return startTime(mark.pid) === mark.started;
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
