// Faults at a rate and a latency, for `idv sandbox --faults 5xx=10%,timeout=2%,429=1% --latency 100ms-2s`: each
// validate request draws its fault and its latency from a seeded generator, in arrival order, so that a seed
// replays the same sequence. The faults are answer.ts's (a status, a hang, a reset); a 429 starts a burst during
// which every request is refused with the seconds left in Retry-After.
import type { Fault } from './answer.js';

export interface FaultRule {
  /** `5xx`: one of 500, 502, 503, 504 each time; `status`: that status; `timeout`: no answer; `reset`: the connection reset; `429`: a burst. */
  kind: '5xx' | 'status' | 'timeout' | 'reset' | '429';
  /** The share of validate requests that meet it, from 0 to 1. */
  rate: number;
  /** For `status`: 500 to 599. */
  status?: number;
  /** For `429`: how long the burst refuses every request, in seconds (default 10). */
  burstSeconds?: number;
}

/** The latency before each validate answer, in ms: a fixed one, or one drawn evenly from a range. */
export interface Latency {
  min: number;
  max: number;
}

export const DEFAULT_BURST_SECONDS = 10;
const SERVER_ERRORS = [500, 502, 503, 504] as const;

/**
 * `5xx=10%,timeout=2%,429=1%/30s` (names: 5xx, a status 500–599, timeout, reset, 429; rates in percent; a 429
 * burst's length after `/`) → rules; `duration` reads a duration in seconds. An Error naming what is wrong.
 */
export function parseFaults(spec: string, duration: (text: string) => number): FaultRule[] {
  const rules: FaultRule[] = [];
  for (const part of spec.split(',').map((p) => p.trim())) {
    if (part === '') continue;
    const m = /^([^=\s]+)\s*=\s*([^/\s]+)\s*(?:\/\s*(\S+))?$/.exec(part);
    if (!m) throw new Error(`"${part}" is no fault: write NAME=RATE, like 5xx=10%`);
    const [, name, rateText, burst] = m as unknown as [string, string, string, string | undefined];
    const rule = faultNamed(name.toLowerCase(), part);
    rule.rate = rateOf(rateText, part);
    if (burst !== undefined) {
      if (rule.kind !== '429') throw new Error(`"${part}": only a 429 burst takes a length (429=1%/30s)`);
      rule.burstSeconds = duration(burst);
      if (!(rule.burstSeconds >= 1)) throw new Error(`"${part}": a burst lasts 1s or more`);
    }
    if (rules.some((r) => r.kind === rule.kind && r.status === rule.status)) throw new Error(`"${name}" is given twice`);
    rules.push(rule);
  }
  const total = rules.reduce((sum, r) => sum + r.rate, 0);
  if (total > 1 + 1e-9) throw new Error(`the rates add up to ${percent(total)}, more than 100%`);
  return rules;
}

function faultNamed(name: string, part: string): FaultRule {
  if (name === '5xx' || name === 'timeout' || name === 'reset' || name === '429') return { kind: name, rate: 0 };
  if (name === 'hang') return { kind: 'timeout', rate: 0 };
  if (/^5\d\d$/.test(name)) return { kind: 'status', status: Number(name), rate: 0 };
  throw new Error(`"${part}": no fault is called "${name}"; give 5xx, a status from 500 to 599, timeout, reset or 429`);
}

function rateOf(text: string, part: string): number {
  const m = /^(\d+(?:\.\d+)?)%$/.exec(text);
  if (!m) throw new Error(`"${part}": give the rate in percent, like ${part.split('=')[0]}=${text.replace(/%$/, '')}%`);
  const rate = Number(m[1]) / 100;
  if (rate > 1) throw new Error(`"${part}": a rate is at most 100%`);
  return rate;
}

/** `10%`, `2.5%`. */
export function percent(rate: number): string {
  return `${Math.round(rate * 10000) / 100}%`;
}

/** The faults as the sandbox says them when it starts: `5xx 10%, timeout 2%, 429 1% (bursts of 10s)`. */
export function describeFaults(rules: readonly FaultRule[]): string {
  return rules
    .map((r) => {
      const name = r.kind === 'status' ? String(r.status) : r.kind;
      const burst = r.kind === '429' ? ` (bursts of ${r.burstSeconds ?? DEFAULT_BURST_SECONDS}s)` : '';
      return `${name} ${percent(r.rate)}${burst}`;
    })
    .join(', ');
}

/** mulberry32: a small, well-known generator of 32-bit states; the same seed, the same numbers in [0, 1). */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What each validate request meets, in arrival order: three numbers drawn a request, whatever it meets. */
export class FaultDraw {
  private readonly random: () => number;
  /** The end of a 429 burst, on `now`'s clock (ms). */
  private burstUntil = 0;

  constructor(
    private readonly rules: readonly FaultRule[],
    private readonly latency: Latency,
    seed: number,
    private readonly now: () => number = Date.now,
  ) {
    this.random = generator(seed);
  }

  /** The next request's fault (undefined: none; none either for a request it is not `aimed` at: a wrong key) and latency in ms. */
  next(aimed = true): { fault: Fault | undefined; latencyMs: number } {
    const [pick, which, wait] = [this.random(), this.random(), this.random()];
    const latencyMs = Math.round(this.latency.min + wait * (this.latency.max - this.latency.min));
    if (!aimed) return { fault: undefined, latencyMs };
    const now = this.now();
    if (now < this.burstUntil) return { fault: tooMany(this.burstUntil - now), latencyMs };
    let edge = 0;
    for (const rule of this.rules) {
      edge += rule.rate;
      if (pick < edge) return { fault: this.fault(rule, which, now), latencyMs };
    }
    return { fault: undefined, latencyMs };
  }

  private fault(rule: FaultRule, which: number, now: number): Fault {
    switch (rule.kind) {
      case '5xx':
        return { kind: 'status', status: SERVER_ERRORS[Math.floor(which * SERVER_ERRORS.length)]! };
      case 'status':
        return { kind: 'status', status: rule.status! };
      case 'timeout':
        return { kind: 'hang' };
      case 'reset':
        return { kind: 'reset' };
      case '429': {
        const ms = (rule.burstSeconds ?? DEFAULT_BURST_SECONDS) * 1000;
        this.burstUntil = now + ms;
        return tooMany(ms);
      }
    }
  }
}

/** A 429 with the seconds left of the burst in Retry-After, and in RateLimit as nothing left until then. */
function tooMany(ms: number): Fault {
  const seconds = String(Math.max(1, Math.ceil(ms / 1000)));
  return { kind: 'status', status: 429, headers: { 'Retry-After': seconds, RateLimit: `"validations";r=0;t=${seconds}` } };
}

/** The name a fault is logged by: `5xx` as its status, `timeout`, `reset`, `429 burst`. */
export function faultName(fault: Fault): string {
  if (fault.kind === 'hang') return 'timeout';
  if (fault.kind === 'status') return fault.status === 429 ? '429 burst' : String(fault.status);
  return fault.kind;
}
