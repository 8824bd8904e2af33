// Text fitted to a terminal (src/system/wrap.ts): words filled, never broken; a message's lines after the first
// indented (the width of a terminal is the Terminal's: test/system/terminal.test.ts).
import { describe, expect, it } from 'vitest';
import { hanging, wrap } from '../../src/system/wrap.js';

describe('wrap', () => {
  it('fills words into lines, a word longer than the line alone on its own', () => {
    expect(wrap('a verylongword b c', 5)).toBe('a\nverylongword\nb c');
    expect(wrap('  spaced   out  ', 80)).toBe('spaced out');
  });

  it('counts display columns: wide characters take two, so a line of them is not wider than the width', () => {
    expect(wrap('(email, e-mail, メールアドレス, 电子邮件, …)', 30)).toBe('(email, e-mail,\nメールアドレス, 电子邮件, …)');
    expect(hanging('idv: 電子メール 電子メール 電子メール', 20)).toBe('idv: 電子メール\n  電子メール\n  電子メール');
  });
});

describe('hanging', () => {
  it('leaves a message that fits as it is, and indents the lines after the first by two', () => {
    expect(hanging('idv: short', 20)).toBe('idv: short');
    expect(hanging('idv: warning: one two three four five six', 20)).toBe('idv: warning: one\n  two three four\n  five six');
  });
});
