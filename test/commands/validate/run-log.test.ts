// Where a run's lines for a person go (src/commands/validate/run-log.ts): standard error, one line each; above the
// progress line while it shows (so that it is drawn again below them), to standard error again once it is handed
// back; --verbose lines only with --verbose.
import { describe, expect, it } from 'vitest';
import { RunLog } from '../../../src/commands/validate/run-log.js';
import type { Progress } from '../../../src/system/progress.js';
import { fakeIo } from '../../fake-io.js';

function progress() {
  const logged: string[] = [];
  let stopped = false;
  const p: Progress = { live: true, update: () => undefined, log: (l) => void logged.push(l), stop: () => void (stopped = true) };
  return { p, logged, stopped: () => stopped };
}

describe('RunLog', () => {
  it('notes, warnings and lines go to standard error, one line each, with their prefix', () => {
    const io = fakeIo();
    const log = new RunLog(io, false);
    log.note('list.csv: skipped line 1 above the header');
    log.warning('cannot write the cache');
    log.line('idv: as it is');
    expect(io.err.text).toBe('idv: note: list.csv: skipped line 1 above the header\nidv: warning: cannot write the cache\nidv: as it is\n');
    expect(io.out.text).toBe('');
  });

  it('--verbose lines only with --verbose; reading a source is given the verbose listener only then', () => {
    const quiet = fakeIo();
    const a = new RunLog(quiet, false);
    a.verbose('POST /emails/validate 3 items → 200');
    expect(quiet.err.text).toBe('');
    expect(a.listeners.verbose).toBeUndefined();
    const loud = fakeIo();
    const b = new RunLog(loud, true);
    b.verbose('POST /emails/validate 3 items → 200');
    b.listeners.verbose!('list.csv: encoding utf-8');
    b.listeners.note('list.csv: read sheet "A"');
    expect(loud.err.text).toBe('idv: POST /emails/validate 3 items → 200\nidv: list.csv: encoding utf-8\nidv: note: list.csv: read sheet "A"\n');
  });

  it('while the progress line shows, lines go above it; handed back, it is stopped and lines go to standard error again', () => {
    const io = fakeIo();
    const log = new RunLog(io, false);
    const { p, logged, stopped } = progress();
    log.takeOver(p);
    log.note('held items: waiting for another run');
    expect(logged).toEqual(['idv: note: held items: waiting for another run']);
    expect(io.err.text).toBe('');
    log.handBack();
    expect(stopped()).toBe(true);
    log.warning('after');
    expect(io.err.text).toBe('idv: warning: after\n');
    expect(logged).toHaveLength(1);
  });

  it('a line holding control characters or line breaks is one line, its controls shown escaped', () => {
    const io = fakeIo();
    new RunLog(io, false).note('bad\u001b[31m name\nsecond');
    expect(io.err.text.split('\n')).toHaveLength(2); // one line and the end
    expect(io.err.text).not.toContain('\u001b');
  });
});
