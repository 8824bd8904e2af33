// What the sandbox answers to a request that validates nothing (an empty list), as the real service
// plausibly does: 200 with an empty result map and the rate-limit headers, also once the quota is used up
// (it costs nothing); 401 for another key all the same. idv auth login / status ask this way.
import { describe, expect, it } from 'vitest';
import { QuotaWindow } from '../../src/sandbox/quota.js';
import { answerValidate } from '../../src/sandbox/answer.js';

const state = (quota: QuotaWindow) => ({ key: 'k1234567', quota, fault: undefined, maxBatch: null, maxBatchStyle: '413' as const });
const empty = (path: string, authorization = 'Bearer k1234567') => ({ method: 'POST', path, authorization, body: '', items: [], itemsError: '' });

describe('answerValidate, an empty list', () => {
  it.each(['/emails/validate', '/domains/validate'])('%s: 200, nothing validated, nothing taken, the headers', (path) => {
    const q = new QuotaWindow(5, 60, () => 0);
    const reply = answerValidate(empty(path), state(q));
    expect(reply).toEqual({
      kind: 'send',
      status: 200,
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'RateLimit-Policy': '"validations";q=5;w=60', RateLimit: '"validations";r=5;t=60' },
      body: path === '/emails/validate' ? '{"emails":{}}' : '{"domains":{}}',
    });
    expect(q.remaining()).toBe(5);
  });

  it('also with the quota used up: 200 with r=0, not 429', () => {
    const q = new QuotaWindow(1, 60, () => 0);
    q.take();
    expect(answerValidate(empty('/emails/validate'), state(q))).toMatchObject({ status: 200, headers: { RateLimit: '"validations";r=0;t=60' } });
  });

  it('another key: 401', () => {
    expect(answerValidate(empty('/emails/validate', 'Bearer nope'), state(new QuotaWindow(1, 60, () => 0)))).toMatchObject({ status: 401 });
  });
});
