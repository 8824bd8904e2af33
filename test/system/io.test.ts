// Text for a person (src/system/io.ts): the run's secrets masked, control characters escaped, one line where one
// line is promised; a warning wrapped to a terminal's width, one line elsewhere.
import { describe, expect, it } from 'vitest';
import { oneLine, warn, withIo, type Io } from '../../src/system/io.js';
import { fakeIo } from '../fake-io.js';

function ioWithSecret() {
  const io = fakeIo();
  io.secrets.add('sk_live_0123456789');
  return io;
}

describe('text for a person', () => {
  it('oneLine escapes line breaks too, so that a name cannot forge a line of its own', () => {
    expect(oneLine(ioWithSecret(), 'list.csv\nidv: done sk_live_0123456789')).toBe('list.csv\\nidv: done ****');
  });

  it('warn writes one line to stderr (a trailing line break is not doubled nor escaped)', () => {
    const io = ioWithSecret();
    warn(io, 'idv: warning: sk_live_0123456789\r\n');
    warn(io, 'second\n');
    expect(io.err.text).toBe('idv: warning: ****\\r\nsecond\n');
    expect(io.out.text).toBe('');
  });
});

describe('warn', () => {
  const message = 'idv: warning: --exclude names "spamtrap", not a known status (known: ok, alias, disposable, fake, quota_exceeded, invalid, error).';

  it('on a terminal, wraps at its width', () => {
    const io = fakeIo({ stderrIsTTY: true, columns: 60 });
    warn(io, message);
    expect(io.err.text).toBe(
      'idv: warning: --exclude names "spamtrap", not a known status\n  (known: ok, alias, disposable, fake, quota_exceeded,\n  invalid, error).\n',
    );
  });

  it('elsewhere (a log file), one line', () => {
    const io = fakeIo({ columns: 60 });
    warn(io, message);
    expect(io.err.text).toBe(message + '\n');
  });
});

describe('withIo', () => {
  it('changes what it is given and leaves what is read when asked (standard input) unread until asked', () => {
    const base = fakeIo();
    let asked = 0;
    const lazy = Object.defineProperty({ ...base }, 'stdin', {
      get: () => {
        asked++;
        return base.stdin;
      },
      enumerable: true,
      configurable: true,
    }) as Io;
    const term = base.term.withoutColor();
    const io = withIo(lazy, { term, configFile: { path: null } });
    expect(asked).toBe(0);
    expect([io.term, io.configFile, io.env, io.stdout]).toEqual([term, { path: null }, base.env, base.stdout]);
    expect(lazy.term).toBe(base.term); // the given Io is not changed
    expect(io.stdin).toBe(base.stdin);
    expect(asked).toBe(1);
  });
});
