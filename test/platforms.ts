// The tests that cannot run on every system, each skipped there by a rule named here, never by accident: this
// list is what the suite does not hold on Windows or macOS (.github/workflows/ci.yml runs it there). On Linux
// every rule holds and nothing is skipped (.ci/run fails on any skipped test). test/platforms.test.ts holds
// that every rule is used, listed in docs/development.md, and that no test skips by the system on its own.
import { describe, it } from 'vitest';

export type System = 'linux' | 'darwin' | 'win32';
const POSIX: System[] = ['linux', 'darwin'];

/** Each rule: the systems where what it needs is there, and what that is. */
export const RULES = {
  proc: { on: ['linux'], needs: "Linux's /proc (pid namespaces and start times, a process's open files)" },
  script: { on: ['linux'], needs: "util-linux's script(1), which runs a command on a terminal (macOS's BSD script takes other flags)" },
  fifo: { on: POSIX, needs: 'FIFOs (mkfifo) and Unix sockets as files: Windows has neither' },
  devices: { on: ['linux'], needs: "Linux's devices and descriptor paths (/dev/full, /proc/self/fd): macOS has neither, Windows none" },
  devFiles: { on: POSIX, needs: '/dev/null, /dev/zero, /dev/stdout and /dev/fd/N as files: Windows has none' },
  owners: { on: POSIX, needs: 'file modes and owners (chmod, uids): Windows has neither' },
  signals: { on: POSIX, needs: 'SIGINT, SIGTERM and SIGHUP delivered to a process: Windows ends it outright' },
  shells: { on: ['linux'], needs: 'bash 4 or newer, zsh and fish (for their completion scripts): macOS has bash 3.2' },
  binary: { on: ['linux'], needs: 'the single executable for linux-x64 that .ci/run builds' },
  symlinks: { on: POSIX, needs: 'symbolic links that any user makes and O_NOFOLLOW refuses: Windows asks for Developer Mode and has no O_NOFOLLOW' },
  sh: { on: POSIX, needs: 'a POSIX sh running a command line as typed (redirections, ulimit -f, a removed working folder): Windows has none' },
  npmGlobal: { on: POSIX, needs: "npm run as a program (not npm.cmd) and npm install -g's POSIX layout (prefix/bin/idv, prefix/lib/node_modules)" },
  tmpfs: { on: ['linux'], needs: 'a small tmpfs mounted by root (mount -t tmpfs), a disk that fills up for real' },
  caseNames: { on: ['linux'], needs: 'file names that differ only in case naming two files: macOS and Windows fold case by default' },
  unknownUser: { on: ['linux'], needs: "a run as a user the machine does not know (util-linux's setpriv or unshare)" },
  xdgHome: { on: ['linux'], needs: 'the folders idv takes on Linux when no XDG variable is set (~/.config/idv, ~/.cache/idv): macOS and Windows have their own' },
} as const satisfies Record<string, { on: readonly System[]; needs: string }>;

export type Rule = keyof typeof RULES;

/** The system the rules judge by: this one, or IDV_TEST_PLATFORM's (`IDV_TEST_PLATFORM=win32 npx vitest list` names what runs on Windows). */
const SYSTEM = process.env.IDV_TEST_PLATFORM || process.platform;

/** Whether a rule holds on a system. */
export function holdsOn(rule: Rule, system: string): boolean {
  return (RULES[rule].on as readonly string[]).includes(system);
}

/** Whether what a rule needs is on this system. */
export function holdsHere(rule: Rule): boolean {
  return holdsOn(rule, SYSTEM);
}

/** `it` and `describe` that run only where the rule holds, and are skipped, by their rule's name, elsewhere. */
export function onlyOn(rule: Rule) {
  const here = holdsHere(rule);
  return { it: here ? it : skipping(it.skip), describe: here ? describe : skipping(describe.skip) };
}

/** A skipped `it` or `describe` that stays skipped along its chain: vitest's `.skipIf(false)` would run it again. */
function skipping<T extends object>(fn: T): T {
  return new Proxy(fn, {
    get(target, key) {
      if (key === 'skipIf' || key === 'runIf') return () => skipping(fn);
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? skipping(value) : value;
    },
  });
}
