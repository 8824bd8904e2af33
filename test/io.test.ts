// Text for a person (src/io.ts): the run's secrets masked, control characters escaped, one line where one
// line is promised.
import { describe, expect, it } from 'vitest';
import { forPerson, oneLine, warn } from '../src/io.js';
import { fakeIo } from './fake-io.js';

function ioWithSecret() {
  const io = fakeIo();
  io.secrets.add('sk_live_0123456789');
  return io;
}

describe('text for a person', () => {
  it('forPerson keeps line breaks, masks secrets and escapes every other control character', () => {
    expect(forPerson(ioWithSecret(), 'key sk_live_0123456789\nbell\x07 \x1b[2J')).toBe('key ****\nbell\\x07 \\x1b[2J');
  });

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
