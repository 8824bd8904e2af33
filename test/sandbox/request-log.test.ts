// The sandbox's request log (src/sandbox/request-log.ts): one line a request, in the words of --verbose, the key
// masked, what a client sent shown escaped.
import { describe, expect, it } from 'vitest';
import { requestLine } from '../../src/sandbox/request-log.js';

const at = Date.parse('2026-03-14T09:58:12.120Z');
const exchange = (over: Partial<Parameters<typeof requestLine>[0]> = {}, incoming: Partial<Parameters<typeof requestLine>[0]['incoming']> = {}) =>
  requestLine({
    incoming: {
      method: 'POST',
      path: '/emails/validate',
      authorization: 'Bearer sk_sandbox_0123456789abcdef',
      contentType: 'application/json',
      body: Promise.resolve(''),
      ended: Promise.resolve(200),
      ...incoming,
    },
    started: at,
    ended: at + 212,
    status: 200,
    items: Array.from({ length: 100 }, (_, i) => `u${i}@x.com`),
    fault: undefined,
    ...over,
  });

describe('a line of the request log', () => {
  it('the time it ended, endpoint, items, status, latency, the key masked', () => {
    expect(exchange()).toBe('2026-03-14T09:58:12.332Z POST /emails/validate 100 items → 200 in 212 ms; key ****cdef');
    expect(exchange({ items: ['a@x.com'] })).toBe('2026-03-14T09:58:12.332Z POST /emails/validate 1 item → 200 in 212 ms; key ****cdef');
  });
  it('the fault met, and what a request without an answer ended as', () => {
    expect(exchange({ status: 503, fault: { kind: 'status', status: 503 } })).toBe('2026-03-14T09:58:12.332Z POST /emails/validate 100 items → 503 in 212 ms (fault: 503); key ****cdef');
    expect(exchange({ status: 429, fault: { kind: 'status', status: 429 } })).toContain('→ 429 in 212 ms (fault: 429 burst)');
    expect(exchange({ status: 0, ended: at + 30_000, fault: { kind: 'hang' } })).toContain('→ no answer (the client gave up) in 30000 ms (fault: timeout)');
    expect(exchange({ status: 0, fault: { kind: 'reset' } })).toContain('→ connection reset in 212 ms (fault: reset)');
    expect(exchange({ status: 0, items: null })).toContain('POST /emails/validate → the client went away in 212 ms');
  });
  it('no key, a short key and a key with control characters are never shown; a path with them is escaped', () => {
    expect(exchange({ status: 401 }, { authorization: undefined })).toMatch(/→ 401 in 212 ms; no key$/);
    expect(exchange({ status: 401 }, { authorization: 'Bearer short' })).toMatch(/; key \*\*\*\*$/);
    expect(exchange({ status: 401 }, { authorization: 'Bearer sk_abcdefgh\x1b[2J\x07' })).toMatch(/; key \*\*\*\*\[2J\\x07$/);
    expect(exchange({ status: 404, items: null }, { path: '/x\x1b]52;c;aGk=\x07' })).toBe('2026-03-14T09:58:12.332Z POST /x\\x1b]52;c;aGk=\\x07 → 404 in 212 ms; key ****cdef');
  });
});
