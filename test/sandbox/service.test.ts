// The service as the sandbox serves it (src/sandbox/service.ts): the model's answer to each request, with the
// fault and latency its hooks give a validate request, and a watcher told what each request turned out to be.
import { describe, expect, it } from 'vitest';
import { QuotaWindow } from '../../src/sandbox/quota.js';
import { serve } from '../../src/sandbox/service.js';
import type { Fault } from '../../src/sandbox/answer.js';

const incoming = (path: string, method: string, body: string | null, authorization = 'Bearer k123') => ({
  method,
  path,
  authorization,
  contentType: 'application/json',
  body: Promise.resolve(body),
  ended: new Promise<number>(() => undefined),
});

describe('serve', () => {
  it('nothing when the client went away before its body; else 404, 405 or the validate answer', async () => {
    const respond = serve('k123', new QuotaWindow(0, 60, () => 0));
    expect(await respond(incoming('/emails/validate', 'POST', null))).toBeNull();
    expect(await respond(incoming('/nope', 'POST', '{}'))).toMatchObject({ status: 404 });
    expect(await respond(incoming('/emails/validate', 'GET', ''))).toMatchObject({ status: 405, headers: { Allow: 'POST' } });
    expect(await respond(incoming('/domains/validate', 'POST', '{"domains":["x.invalid"]}'))).toMatchObject({
      status: 200,
      body: '{"domains":{"x.invalid":{"status":"fake"}}}',
      delayMs: 0,
    });
  });
  it('asks its hooks for each validate request only: the fault for an authorized one, the latency for every one', async () => {
    const asked: boolean[] = [];
    const told: Array<[string, unknown]> = [];
    const respond = serve('k123', new QuotaWindow(0, 60, () => 0), {
      next: (authorized) => {
        asked.push(authorized);
        return { fault: { kind: 'status', status: 503 } as Fault, latencyMs: 40 };
      },
      arrived: (i) => ({ read: (items) => told.push([i.path, items]), answering: (fault, ms) => told.push(['answering', [fault, ms]]) }),
    });
    expect(await respond(incoming('/emails/validate', 'POST', '{"emails":["a@b.co"]}'))).toMatchObject({ status: 503, delayMs: 40 });
    expect(await respond(incoming('/emails/validate', 'POST', '{"emails":["a@b.co"]}', 'Bearer nope'))).toMatchObject({ status: 401, delayMs: 40 });
    expect(await respond(incoming('/nope', 'POST', '{}'))).toMatchObject({ status: 404 });
    expect(asked).toEqual([true, false]);
    expect(told).toEqual([
      ['/emails/validate', ['a@b.co']],
      ['answering', [{ kind: 'status', status: 503 }, 40]],
      ['/emails/validate', ['a@b.co']],
      ['answering', [undefined, 40]],
      ['/nope', null],
    ]);
  });
});
