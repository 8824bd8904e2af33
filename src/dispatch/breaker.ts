// The circuit breaker: a host that gives no answer (refused, name not found, unreachable, reset, TLS failure,
// time-out) or turns every request away (403, 404, a proxy refusing the tunnel) stops the run, instead of
// ending every record `error` after all its retries. It trips on at least two such requests in a row with no
// other answer between them, once a batch has used all its tries that way, or once they have gone on BREAKER_MS;
// before the host has answered anything, on one request turned away for good or unanswered for BREAKER_MS.
// A 413 (or a 400 naming the size) is neither an answer nor a host gone: two items in a row refused alone as too large, after all their
// tries and with no answer between them, are a service that refuses everything, and stop the run too.
import { IdvError } from '../core/errors.js';

/** How long requests may keep getting no answer before the run stops, whatever --retries allows. */
export const BREAKER_MS = 30_000;

export class Breaker {
  /** Requests in a row that got no usable answer. */
  streak = 0;
  /** When the first of them was sent. */
  private since = 0;
  private lastAnswerAt = -Infinity;

  /** Requests in a row answered 413 (too large), whatever their size, with no answer between them. */
  tooLargeInRow = 0;
  /** Items among them refused alone, after all their tries. */
  private refusedAlone = 0;

  /** A request got an answer from the host (any but one it gives to every request). */
  answered(now: number): void {
    this.streak = 0;
    this.lastAnswerAt = now;
    this.tooLargeInRow = 0;
    this.refusedAlone = 0;
  }

  /** A request was refused as too large; `alone`: a lone item, after all its tries. Whether the run must stop. */
  tooLarge(alone: boolean): boolean {
    this.tooLargeInRow++;
    if (alone) this.refusedAlone++;
    return this.refusedAlone >= 2;
  }

  /**
   * A request sent at `sentAt` got none. `batchSince`: when its batch's first try was sent; `lastTry`: the
   * batch gives up with it. Whether the run must stop.
   */
  broken(sentAt: number, batchSince: number, lastTry: boolean, now: number, turnedAway = false): boolean {
    this.since = this.streak === 0 ? sentAt : Math.min(this.since, sentAt);
    this.streak++;
    // Before any answer, one request is enough: a small run's one batch is every batch, and a retry after a
    // --timeout of 30 s would wait as long again.
    const first = this.lastAnswerAt === -Infinity && ((turnedAway && lastTry) || now - this.since >= BREAKER_MS);
    if (first) return true;
    if (this.streak < 2) return false;
    return (lastTry && batchSince > this.lastAnswerAt) || now - this.since >= BREAKER_MS;
  }
}

/** A run stopped by its service (a host that does not answer, or refuses every item): its caller says where the results went. */
export class ServiceStopped extends IdvError {
  constructor(message: string) {
    super('failed', message);
  }
}

/** The one line a tripped breaker stops the run with (exit 1). */
export function hostError(host: string, reason: string, requests: number, turnedAway: boolean): IdvError {
  const what =
    requests === 1
      ? turnedAway
        ? 'turned away the first request'
        : 'gave no answer to the first request'
      : turnedAway
        ? `turned away ${requests} requests in a row`
        : `gave no answer to ${requests} requests in a row`;
  const check = /\bproxy\b/.test(reason) ? 'the proxy (HTTPS_PROXY)' : turnedAway ? '--base-url' : '--base-url and the network';
  return new ServiceStopped(`The service at ${host} ${what}: ${reason}; check ${check}, then run the same command again.`);
}

/** The one line a service that refuses even lone items as too large stops the run with (exit 1). */
export function tooLargeError(host: string, requests: number, status: number): IdvError {
  return new ServiceStopped(
    `The service at ${host} refused even single items as too large (HTTP ${status}), ${requests} requests in a row; check --base-url (and any proxy in front of the service), then run the same command again.`,
  );
}
