// The sandbox's quota window, given a clock: no waiting.
import { describe, expect, it } from 'vitest';
import { QuotaWindow } from '../src/sandbox/quota.js';
import { answerValidate, parseItems } from '../src/sandbox/answer.js';

describe('QuotaWindow', () => {
  it('takes validations until none is left, then a new window starts full', () => {
    let t = 1_000_000;
    const q = new QuotaWindow(3, 60, () => t);
    expect([q.take(), q.take(), q.take(), q.take()]).toEqual([true, true, true, false]);
    expect(q.headers()).toEqual({ 'RateLimit-Policy': '"validations";q=3;w=60', RateLimit: '"validations";r=0;t=60' });
    t += 59_500;
    expect(q.secondsToReset()).toBe(1);
    t += 500;
    expect(q.remaining()).toBe(3);
    t += 125_000; // two windows later: windows are back to back from the start
    expect(q.secondsToReset()).toBe(55);
  });
  it('quota 0 is unlimited and sends no headers', () => {
    const q = new QuotaWindow(0, 60, () => 0);
    expect(Array.from({ length: 5 }, () => q.take())).toEqual([true, true, true, true, true]);
    expect(q.headers()).toEqual({});
  });
});

describe('answerValidate', () => {
  const state = (quota: QuotaWindow) => ({ key: 'k123', quota, fault: undefined, maxBatch: null, maxBatchStyle: '413' as const });
  const req = (items: string[], authorization = 'Bearer k123') => ({
    method: 'POST',
    path: '/emails/validate',
    authorization,
    body: '',
    ...{ items, itemsError: '' },
  });
  it('validates the first N items in submitted order, the rest quota_exceeded', () => {
    const reply = answerValidate(req(['a@fake.com', 'b+x@gmail.com', 'c@gmail.com']), state(new QuotaWindow(2, 60, () => 0)));
    expect(reply).toMatchObject({ kind: 'send', status: 200, headers: { RateLimit: '"validations";r=0;t=60' } });
    expect(JSON.parse((reply as { body: string }).body)).toEqual({
      emails: { 'a@fake.com': { status: 'fake' }, 'b+x@gmail.com': { status: 'alias' }, 'c@gmail.com': { status: 'quota_exceeded' } },
    });
  });
  it('401 for another key; 429 once nothing is left', () => {
    expect(answerValidate(req(['a@b.co'], 'Bearer nope'), state(new QuotaWindow(1, 60, () => 0)))).toMatchObject({ status: 401 });
    const q = new QuotaWindow(1, 60, () => 0);
    q.take();
    expect(answerValidate(req(['a@b.co']), state(q))).toMatchObject({ status: 429, headers: { 'Retry-After': '60' } });
  });
  it('parseItems: the field of the endpoint, all strings', () => {
    expect(parseItems('{"emails":["a@b.co"]}', 'emails')).toEqual({ items: ['a@b.co'], error: '' });
    expect(parseItems('{"domains":["a@b.co"]}', 'emails').error).toBe('Missing field "emails": expected an array of email addresses.');
    expect(parseItems('{"emails":[1]}', 'emails').error).toBe('Field "emails" must be an array of strings.');
    expect(parseItems('nope', 'emails').error).toBe('The request body must be a JSON object.');
  });
});
