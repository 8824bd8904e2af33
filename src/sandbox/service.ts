// The service as the sandbox serves it, one request at a time: the pure model (answer.ts) with what varies
// between the shipped sandbox and a test's given as hooks — the fault aimed at a validate request (rates drawn
// from a seed, or a test's queue), the latency before its answer, a batch limit — and a watcher told what each
// request turned out to be (the request log, a test's record of requests).
import { answerOther, answerValidate, bearerToken, readRequest, type BatchLimit, type Fault } from './answer.js';
import type { Incoming, Reply } from './http-server.js';
import type { QuotaWindow } from './quota.js';

/** What a watcher learns of one request after it arrived. */
export interface Watch {
  /** Its body is read: the items it sends (null when none are readable, or the client went away). */
  read?(items: string[] | null): void;
  /** It is a validate request, answered with this fault (if any) after this many ms. */
  answering?(fault: Fault | undefined, latencyMs: number): void;
}

export interface ServiceHooks {
  /**
   * What the next validate request meets: the fault aimed at it (none: answered well; only an authorized request
   * meets one, a wrong key is a 401) and the ms to wait before answering it.
   */
  next?(authorized: boolean): { fault?: Fault; latencyMs?: number };
  batchLimit?(): BatchLimit | undefined;
  /** A request arrived: what to tell of it as the service learns it. */
  arrived?(incoming: Incoming): Watch | undefined;
}

/** The reply to each request, in arrival order (the quota is taken as each body is read). */
export function serve(key: string, quota: QuotaWindow, hooks: ServiceHooks = {}): (incoming: Incoming) => Promise<Reply | null> {
  return async (incoming) => {
    const watch = hooks.arrived?.(incoming);
    const body = await incoming.body;
    const request = readRequest(incoming, body);
    watch?.read?.(request.items);
    if (body === null) return null; // the client went away
    const other = answerOther(request);
    if (other) return other;
    const aimed = bearerToken(request.authorization) === key;
    const { fault, latencyMs = 0 } = hooks.next?.(aimed) ?? {};
    watch?.answering?.(aimed ? fault : undefined, latencyMs);
    const reply = answerValidate(request, { key, quota, fault: aimed ? fault : undefined, batchLimit: hooks.batchLimit?.() });
    return { ...reply, delayMs: latencyMs };
  };
}
