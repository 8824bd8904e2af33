// The answer map read without JSON.parse (src/api/answer-map.ts): the service's own shape read exactly, every
// other text left to JSON.parse — never a map JSON.parse would not give, never a map for text that is not JSON.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { answerMap } from '../../src/api/answer-map.js';

/** What client.ts reads from JSON.parse: each name whose value is an object with a string status. */
function parsed(text: string, field: string): Map<string, string> | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  const entries = (body as Record<string, unknown> | null)?.[field];
  if (typeof entries !== 'object' || entries === null || Array.isArray(entries)) return null;
  const map = new Map<string, string>();
  for (const [name, v] of Object.entries(entries)) {
    const status = (v as { status?: unknown } | null)?.status;
    if (typeof status === 'string') map.set(name, status);
  }
  return map;
}

describe('answerMap', () => {
  it('reads the service\'s shape, compact or with white space, empty, a repeated name keeping its last status', () => {
    expect(answerMap('{"emails":{"a@x.com":{"status":"ok"},"b@y.org":{"status":"disposable"}}}', 'emails')).toEqual(
      new Map([
        ['a@x.com', 'ok'],
        ['b@y.org', 'disposable'],
      ]),
    );
    expect(answerMap(' {\n  "domains" : {\r\n\t"x.com" : { "status" : "fake" }\n }\n}\n', 'domains')).toEqual(new Map([['x.com', 'fake']]));
    expect(answerMap('{"emails":{}}', 'emails')).toEqual(new Map());
    expect(answerMap('{"emails":{"a@x.com":{"status":"ok"},"a@x.com":{"status":"fake"}}}', 'emails')).toEqual(new Map([['a@x.com', 'fake']]));
    // a space, a DEL, non-ASCII inside a name or status: plain string characters in JSON
    expect(answerMap('{"emails":{"a b@x.com":{"status":"new word\x7f"},"ü@bücher.de":{"status":"ok"}}}', 'emails')).toEqual(
      new Map([
        ['a b@x.com', 'new word\x7f'],
        ['ü@bücher.de', 'ok'],
      ]),
    );
  });

  it('leaves every other shape to JSON.parse: escapes, other members, another field, text after the end', () => {
    for (const text of [
      '{"emails":{"a\\u0040x.com":{"status":"ok"}}}', // an escape in a name
      '{"emails":{"a@x.com":{"status":"o\\"k"}}}', // in a status
      '{"emails":{"a@x.com":{"status":"ok","score":0.9}}}', // a member besides status
      '{"emails":{"a@x.com":{"score":0.9,"status":"ok"}}}',
      '{"emails":{"a@x.com":{"status":1}}}', // a status that is no string
      '{"emails":{"a@x.com":{"status":"ok"}},"meta":{}}', // a member besides the field
      '{"meta":{},"emails":{}}',
      '{"domains":{}}', // the other field
      '{"emails":{"a@x.com":{"status":"ok"}}}x', // not JSON
      '{"emails":{"a@x.com":{"status":"ok"},}}', // a trailing comma: not JSON
      '{"emails":{"a@x.com":{"status":"o\tk"}}}', // a raw tab in a string: not JSON
      '\ufeff{"emails":{}}', // a byte-order mark: not JSON
      '{"emails":{"a@x.com":{"status":"ok"}}', // cut short
      '{"emails":{"a@x.com":{"status":"ok"};"b@y.org":{"status":"ok"}}}', // no comma between members
      '{"emails":{"a@x.com":{"status":"ok"} "b@y.org":{"status":"ok"}}}',
      '{"emails":{"a@x.com":{"status":"ok"}}}}', // one brace too many
      '{"emails":{"a@x.com":{"status":"ok"}]}', // a bracket for a brace
      '{"emails":{"a@x.com":{"status":"ok"}', // cut after a member
      '{"emails":{"a@x.com":{"status":"ok"', // cut in a member
      '{"emails":{"a@x.com":{"status":"ok}}}', // a status never closed
      '{"emails":{"a@x.com:{"status":"ok"}}}', // a name never closed where it should be
      '{"emails":{a@x.com:{"status":"ok"}}}', // a name without quotes
      '{"emails":{"a@x.com"{"status":"ok"}}}', // no colon
      '{"emails":{"a@x.com":{"status":"ok"}},}', // a trailing comma at the top
      '{"emails" {}}',
      '{"emails":[]}',
      '{"emails":{}',
      '',
    ]) {
      expect(answerMap(text, 'emails'), text).toBeUndefined();
    }
  });

  it('for any text near the service\'s shape, the map JSON.parse gives or none: never another, never one for what is not JSON', () => {
    const name = fc.oneof({ arbitrary: fc.constantFrom('a@x.com', 'b@y.org', 'ü@bücher.de', '"q"@x.com', 'a\\b@x.com'), weight: 3 }, fc.string({ maxLength: 6 }));
    const value = fc.oneof(
      { arbitrary: fc.record({ status: fc.oneof(fc.constantFrom('ok', 'fake', 'quota_exceeded'), fc.string({ maxLength: 4 })) }), weight: 8 },
      fc.record({ status: fc.constantFrom('ok'), score: fc.integer() }),
      fc.constant({ status: 1 }),
      fc.constant(null),
    );
    const body = fc.record({ field: fc.constantFrom('emails', 'emails', 'emails', 'domains'), entries: fc.array(fc.tuple(name, value), { maxLength: 5 }), indent: fc.constantFrom(0, 1, 2, '\t') });
    const edit = fc.option(fc.tuple(fc.nat(), fc.nat({ max: 3 }), fc.constantFrom('', ' ', ',', '}', '"', '\\', '\n', ':', '{"status":"ok"}')), { freq: 2 });
    let read = 0;
    fc.assert(
      fc.property(body, edit, ({ field, entries, indent }, cut) => {
        let text = JSON.stringify({ [field]: Object.fromEntries(entries) }, null, indent);
        // Entries written as text too, so a name may come twice (JSON.stringify of an object never repeats one).
        if (entries.length > 1) text = text.replace(/}\s*}\s*$/, `}, ${JSON.stringify(entries[0]![0])}: {"status": "fake"}}}`);
        if (cut) {
          const [at, drop, insert] = cut;
          const i = at % (text.length + 1);
          text = text.slice(0, i) + insert + text.slice(i + drop);
        }
        const fast = answerMap(text, 'emails');
        if (fast !== undefined) {
          read++;
          expect(fast, text).toEqual(parsed(text, 'emails'));
        }
      }),
      { seed: 20261125, numRuns: 3000 },
    );
    expect(read).toBeGreaterThan(300); // the fast path is taken often enough to be tested
  });
});
