// The secrets registry (src/system/secrets.ts): a key is masked in whatever form a server or a library repeats it.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Secrets } from '../../src/system/secrets.js';

describe('Secrets', () => {
  const KEY = 'sk_live/ab+cd=efGH';
  const secrets = new Secrets();
  secrets.add(KEY);
  const b64 = Buffer.from(KEY).toString('base64');

  it.each([
    ['as it is', KEY],
    ['upper-cased', KEY.toUpperCase()],
    ['percent-encoded', encodeURIComponent(KEY)],
    ['percent-encoded with lower-case hex', encodeURIComponent(KEY).toLowerCase()],
    ['partly percent-encoded', 'sk_live%2Fab%2Bcd=efGH'],
    ['percent-encoded twice', encodeURIComponent(encodeURIComponent(KEY))],
    ['JSON-escaped', JSON.stringify(KEY).slice(1, -1)],
    ['JSON \\u escapes', 'sk_live\\u002fab\\u002bcd\\u003defGH'],
    ['in base64', b64],
    ['in base64 without padding', b64.replace(/=+$/, '')],
    ['reversed', [...KEY].reverse().join('')],
  ])('%s: masked, the text around it kept', (_, form) => {
    expect(secrets.redact(`{"message":"bad key ${form}, try again"}`)).toBe('{"message":"bad key ****, try again"}');
    expect(secrets.holds(`x${form}y`)).toBe(true);
  });

  it('the key, then a longer form of it in the same message (its base64, its double percent-encoding): both masked, in either order', () => {
    const twice = encodeURIComponent(encodeURIComponent(KEY));
    expect(secrets.redact(`bad key ${KEY}; as sent: ${b64}`)).toBe('bad key ****; as sent: ****');
    expect(secrets.redact(`as sent: ${b64}; bad key ${KEY}`)).toBe('as sent: ****; bad key ****');
    expect(secrets.redact(`key ${KEY}, echoed ${twice}.`)).toBe('key ****, echoed ****.');
  });

  it('text without the key is left as it is, escapes and case included; a key given twice is masked twice', () => {
    const text = 'HTTP 403: Forbidden %2F \\u0041 \\/path sk_live';
    expect(secrets.redact(text)).toBe(text);
    expect(secrets.holds(text)).toBe(false);
    expect(secrets.redact(`${KEY} and ${KEY.toUpperCase()}`)).toBe('**** and ****');
  });

  it('a secret shorter than four characters, or than the minimum given, is not searched for', () => {
    const s = new Secrets();
    s.add('abc');
    s.add('abcdef', 8);
    expect(s.redact('abc abcdef')).toBe('abc abcdef');
  });
});

describe('Secrets, an echo cut short', () => {
  it('the key\'s start or end, 60% of it or more (and 8 characters at least), is masked; less is not', () => {
    const s = new Secrets();
    const key = 'sk_test_12345678';
    s.add(key);
    expect(s.redact('bad key sk_test_1234…')).toBe('bad key ****…');
    expect(s.redact('bad key …est_12345678')).toBe('bad key …****');
    expect(s.redact('prefix sk_test_ only')).toBe('prefix sk_test_ only');
  });
});

/**
 * What redact() means, spelt out the slow way: every form of every secret (its start and end of 60% or more one
 * by one) searched for in the text's plain view, the spans found masked, overlapping ones as one.
 */
function redactByEveryForm(secrets: string[], text: string): string {
  const lower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const forms: string[] = [];
  for (const secret of secrets) {
    const b64 = Buffer.from(secret).toString('base64');
    forms.push(secret, encodeURIComponent(secret), b64, b64.replace(/=+$/, ''), [...secret].reverse().join(''));
    for (let n = Math.max(8, Math.ceil(secret.length * 0.6)); n < secret.length; n++) forms.push(secret.slice(0, n), secret.slice(-n));
  }
  const plain = lower(text);
  const spans: Array<[number, number]> = [];
  for (const form of forms.map(lower)) for (let i = plain.indexOf(form); i !== -1; i = plain.indexOf(form, i + 1)) spans.push([i, i + form.length]);
  spans.sort((a, b) => a[0] - b[0]);
  let [out, from] = ['', 0];
  for (const [start, end] of spans) {
    if (start < from) from = Math.max(from, end);
    else [out, from] = [out + text.slice(from, start) + '****', end];
  }
  return out + text.slice(from);
}

describe('Secrets, any secret in any text', () => {
  it('masks exactly what searching for every form one by one masks (a text without escapes)', () => {
    // Few letters, so that secrets and texts share long runs, repeat themselves and overlap.
    const letters = fc.constantFrom('a', 'b', 'A', 'B', '_', '-');
    const word = (min: number, max: number) => fc.array(letters, { minLength: min, maxLength: max }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(fc.array(word(4, 24), { minLength: 1, maxLength: 3 }), word(0, 80), (keys, text) => {
        const s = new Secrets();
        for (const key of keys) s.add(key);
        const expected = redactByEveryForm(keys, text);
        expect(s.redact(text)).toBe(expected);
        expect(s.holds(text)).toBe(expected !== text);
      }),
      { seed: 20261127, numRuns: 3000 },
    );
  });
});

describe('Secrets, a long key', () => {
  /** Calls made, while `work` runs, to the string methods that copy or search, on strings of `long` characters or more. */
  function passesOverLongStrings(long: number, work: () => void): number {
    const names = ['slice', 'substring', 'indexOf', 'includes', 'replace', 'toLowerCase', 'split', 'concat'] as const;
    const originals = names.map((name) => [name, String.prototype[name]] as const);
    let passes = 0;
    // Counted, not recorded: the strings themselves are not kept (a quadratic run makes a great many).
    for (const [name, original] of originals) {
      String.prototype[name] = function (this: string, ...args: unknown[]) {
        if (this.length >= long) passes++;
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      } as never;
    }
    try {
      work();
      return passes;
    } finally {
      for (const [name, original] of originals) String.prototype[name] = original as never;
    }
  }

  const keyOf = (length: number) => Array.from({ length }, (_, i) => 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789'[(i * 7 + (i >> 3)) % 46]).join('');
  const use = (key: string) => () => {
    const s = new Secrets();
    s.add(key);
    expect(s.redact(`bad key ${key.slice(0, -3)}…, again: ${key}`)).toBe('bad key ****…, again: ****');
    expect(s.holds('ok')).toBe(false);
  };

  it('passes over a key of 10,000 characters as often as over one of 1,000 (once per form, not once per length)', () => {
    const passes = passesOverLongStrings(1_000, use(keyOf(1_000)));
    expect(passes).toBeGreaterThan(0);
    expect(passesOverLongStrings(1_000, use(keyOf(10_000)))).toBe(passes);
  });
});
