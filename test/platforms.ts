// The tests that cannot run on every system, each skipped there by a rule named here, never by accident: this
// list is what the suite does not hold on Windows or macOS (.github/workflows/ci.yml runs it there). On Linux
// every rule holds and nothing is skipped (.ci/run fails on any skipped test).
import { describe, it } from 'vitest';

type System = 'linux' | 'darwin' | 'win32';
const POSIX: System[] = ['linux', 'darwin'];

/** Each rule: the systems where what it needs is there, and what that is. */
export const RULES = {
  proc: { on: ['linux'], needs: "Linux's /proc (pid namespaces and start times)" },
  script: { on: ['linux'], needs: "util-linux's script(1), which runs a command on a terminal" },
  fifo: { on: POSIX, needs: 'FIFOs (mkfifo): Windows has none' },
  devices: { on: ['linux'], needs: "Linux's devices and descriptor paths (/dev/full, /dev/fd/N, /proc/self/fd)" },
  owners: { on: POSIX, needs: 'file modes and owners (chmod, uids): Windows has neither' },
  signals: { on: POSIX, needs: 'SIGTERM and SIGHUP delivered to a process: Windows ends it outright' },
  shells: { on: ['linux'], needs: 'bash 4 or newer, zsh and fish (for their completion scripts)' },
  binary: { on: ['linux'], needs: 'the single executable for linux-x64 that .ci/run builds' },
} as const satisfies Record<string, { on: readonly System[]; needs: string }>;

export type Rule = keyof typeof RULES;

/** Whether what a rule needs is on this system. */
export function holdsHere(rule: Rule): boolean {
  return (RULES[rule].on as readonly string[]).includes(process.platform);
}

/** `it` and `describe` that run only where the rule holds, and are skipped, by their rule's name, elsewhere. */
export function onlyOn(rule: Rule) {
  const here = holdsHere(rule);
  return { it: here ? it : it.skip, describe: here ? describe : describe.skip };
}
