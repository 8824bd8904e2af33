// Text from a file or the service made safe for a terminal (src/system/terminal-text.ts).
import { describe, expect, it } from 'vitest';
import { terminalSafe } from '../../src/system/terminal-text.js';
describe('terminalSafe', () => {
  it('escapes C0, C1, DEL and bidi overrides, keeps other text', () => {
    expect(terminalSafe('a\x1b]52;c;aGk=\x07b')).toBe('a\\x1b]52;c;aGk=\\x07b');
    expect(terminalSafe('x\ny\rz\tw\x7f\x9b\u202eé€')).toBe('x\\ny\\rz\\tw\\x7f\\x9b\\u202eé€');
    expect(terminalSafe('jane.doe@example.com')).toBe('jane.doe@example.com');
  });
});
