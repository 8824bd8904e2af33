// Widths in display columns, the one count every layout of idv uses (help, tables, progress, summary, wrap).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { cutToWidth, displayWidth, fitEndToWidth, fitToWidth, padEndTo, padStartTo } from '../../src/system/display-width.js';

describe('displayWidth', () => {
  it.each([
    ['plain ASCII', 'jane@example.com', 16],
    ['East Asian wide characters, two columns each', 'メールアドレス', 14],
    ['Chinese', '电子邮件', 8],
    ['Hangul syllables', '이메일', 6],
    ['fullwidth forms', 'ＡＢＣ', 6],
    ['an emoji', '📧', 2],
    ['an emoji sequence joined by ZWJ (a family): one picture, two columns', '👨‍👩‍👧', 2],
    ['a flag (two regional indicators)', '🇫🇷', 2],
    ['a letter and its combining accent: one column', 'e\u0301', 1],
    ['zero-width characters take none', 'a\u200bb\ufeff', 2],
    ['Cyrillic, one column a letter', 'Электронная почта', 17],
    ['colour escapes take none', '\u001b[32mok\u001b[39m', 2],
  ])('%s', (_, text, width) => {
    expect(displayWidth(text)).toBe(width);
  });
});

describe('cutting and padding to a width', () => {
  it('a cut never splits a wide character: the cell ends one column short instead', () => {
    expect(fitToWidth('メールアドレス', 6)).toBe('メー…');
    expect(displayWidth(fitToWidth('メールアドレス', 6))).toBe(5);
  });

  it('a cut keeps a letter with its combining marks, and an emoji sequence whole', () => {
    expect(cutToWidth('e\u0301e\u0301e\u0301', 2)).toBe('e\u0301e\u0301');
    expect(cutToWidth('a👨‍👩‍👧b', 3)).toBe('a👨‍👩‍👧');
    expect(cutToWidth('a👨‍👩‍👧b', 2)).toBe('a');
  });

  it('text that fits is left as it is; fitting to 0 or less gives nothing', () => {
    expect(fitToWidth('ok', 2)).toBe('ok');
    expect(fitToWidth('okay', 0)).toBe('');
    expect(fitToWidth('okay', 3)).toBe('ok…');
  });

  it('a cut may keep the end instead (a suggestion keeps its domain), at a display width', () => {
    expect(fitEndToWidth('jonathan@gmail.com', 11)).toBe('…@gmail.com');
    expect(fitEndToWidth('山田@例え.jp', 8)).toBe('…例え.jp');
    expect(fitEndToWidth('short', 10)).toBe('short');
  });

  it('padding counts columns: a wide text gets fewer spaces', () => {
    expect(padEndTo('电子', 6)).toBe('电子  ');
    expect(padStartTo('电子', 6)).toBe('  电子');
    expect(padEndTo('toolong', 3)).toBe('toolong');
  });

  it('any text cut to any width is at most that wide, and a start of the text', () => {
    const text = fc.array(fc.constantFrom('a', 'é', 'e\u0301', '电', '📧', '👨‍👩‍👧', ' ', 'Ж'), { maxLength: 30 }).map((a) => a.join(''));
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 40 }), (t, w) => {
        const fitted = fitToWidth(t, w);
        expect(displayWidth(fitted)).toBeLessThanOrEqual(w);
        expect(t.startsWith(fitted.replace(/…$/, ''))).toBe(true);
        if (displayWidth(t) <= w) expect(fitted).toBe(t);
      }),
      { seed: 38, numRuns: 300 },
    );
  });
});

describe('fitToWidth (the progress line\'s cut)', () => {
  it.each([
    ['short', 10, 'short'],
    ['exactly ten', 11, 'exactly ten'],
    ['a longer text', 8, 'a longe…'],
    ['x', 0, ''],
  ])('%j at %i', (text, width, out) => {
    expect(fitToWidth(text, width)).toBe(out);
  });
});
