// Whether the process that marked a heartbeat or a temporary file still runs: from /proc where Linux has it
// (a reused pid told apart by its start time), by a signal 0 to the pid where it has not (macOS, Windows),
// and "cannot tell" for a process out of sight (another pid namespace, another host).
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { HOST, markAlive, markText, parseMark, selfMark, type ProcessTable } from '../../src/system/process-mark.js';
import { onlyOn } from '../platforms.js';

/** The table of a system without /proc (macOS, Windows), on this one. */
const noProc: ProcessTable = { ...HOST, proc: false };

/** A child process that has exited: its pid runs no more. */
async function exitedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => child.on('exit', r));
  return child.pid!;
}

describe('process marks', () => {
  onlyOn('proc').it('on Linux the mark names the pid namespace and start time: a live process is alive, one gone or a reused pid is not', async () => {
    const self = selfMark()!;
    expect(self.namespace).toMatch(/^pid:\[\d+\]$/);
    expect(markAlive(self, self)).toBe(true);
    expect(markAlive({ ...self, started: '1' }, self)).toBe(false); // the pid now runs another process
    expect(markAlive({ ...self, pid: await exitedPid() }, self)).toBe(false);
    expect(markAlive({ ...self, namespace: 'pid:[1]' }, self)).toBeNull(); // a container's: out of sight
  });

  it('without /proc the mark names the host, and a signal 0 tells: no such process is dead, EPERM (another user) is alive', async () => {
    const self = selfMark(noProc)!;
    expect(self).toEqual({ pid: process.pid, namespace: expect.stringMatching(/^host:\[\d+\]$/), started: String(Math.floor(performance.timeOrigin)) });
    expect(parseMark(markText(self))).toEqual(self);
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      expect(markAlive({ ...self, pid: child.pid! }, self, noProc)).toBe(true);
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.on('exit', r));
    }
    expect(markAlive({ ...self, pid: child.pid! }, self, noProc)).toBe(false);
    const otherUser: ProcessTable = {
      ...noProc,
      signal0: () => {
        throw Object.assign(new Error('kill EPERM'), { code: 'EPERM' });
      },
    };
    expect(markAlive({ ...self, pid: 1 }, self, otherUser)).toBe(true);
    expect(markAlive({ ...self, started: '1' }, self, noProc)).toBe(false); // this process's pid, once another's
    expect(markAlive({ ...self, namespace: 'host:[1]' }, self, noProc)).toBeNull(); // another machine sharing the folder
  });

  it("the host's mark is the same for every run on a machine and differs between machines", () => {
    const on = (name: string) => selfMark({ ...noProc, hostname: () => name })!.namespace;
    expect(on('laptop')).toBe(on('laptop'));
    expect(on('laptop')).not.toBe(on('desktop'));
  });
});
