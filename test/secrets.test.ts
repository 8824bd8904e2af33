// The secrets registry (src/secrets.ts): a key is masked in whatever form a server or a library repeats it.
import { describe, expect, it } from 'vitest';
import { Secrets } from '../src/secrets.js';

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
