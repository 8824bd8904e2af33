// The circuit breaker: a host that gives no answer (refused, name not found, unreachable, reset, TLS failure,
// time-out) or turns every request away (403, 404, a proxy refusing the tunnel) stops the run, instead of
// ending every record `error` after all its retries. It trips on at least two such requests in a row with no
// other answer between them, once a batch has used all its tries that way, or once they have gone on BREAKER_MS;
// and on the first batch turned away before the host has answered anything.
import { IdvError } from '../errors.js';

/** How long requests may keep getting no answer before the run stops, whatever --retries allows. */
export const BREAKER_MS = 30_000;

export class Breaker {
  /** Requests in a row that got no usable answer. */
  streak = 0;
  /** When the first of them was sent. */
  private since = 0;
  private lastAnswerAt = -Infinity;

  /** A request got an answer from the host (any but one it gives to every request). */
  answered(now: number): void {
    this.streak = 0;
    this.lastAnswerAt = now;
  }

  /**
   * A request sent at `sentAt` got none. `batchSince`: when its batch's first try was sent; `lastTry`: the
   * batch gives up with it. Whether the run must stop.
   */
  broken(sentAt: number, batchSince: number, lastTry: boolean, now: number, turnedAway = false): boolean {
    this.since = this.streak === 0 ? sentAt : Math.min(this.since, sentAt);
    this.streak++;
    // A host that has turned away the first batch it saw, and answered nothing else, turns away every batch: the
    // one batch of a small run, too, stops the run (its output left as it was) instead of ending it `error`.
    const firstTurnedAway = turnedAway && lastTry && this.lastAnswerAt === -Infinity;
    if (this.streak < 2 && !firstTurnedAway) return false;
    if (firstTurnedAway) return true;
    return (lastTry && batchSince > this.lastAnswerAt) || now - this.since >= BREAKER_MS;
  }
}

/** The one line a tripped breaker stops the run with (exit 1). */
export function hostError(host: string, reason: string, requests: number, turnedAway: boolean): IdvError {
  const what =
    requests === 1
      ? `turned away the first request` // only a turn-away trips at once
      : turnedAway
        ? `turned away ${requests} requests in a row`
        : `gave no answer to ${requests} requests in a row`;
  const check = /\bproxy\b/.test(reason) ? 'the proxy (HTTPS_PROXY)' : turnedAway ? '--base-url' : '--base-url and the network';
  return new IdvError('failed', `The service at ${host} ${what}: ${reason}; check ${check}, then run the same command again (results received so far are cached).`);
}
