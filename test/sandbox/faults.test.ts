// Faults at a rate and latencies, drawn from a seed (src/sandbox/faults.ts): the --faults grammar, the draws a
// seed replays, rates that hold over many requests, a 429 burst on a clock.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { describeFaults, FaultDraw, parseFaults, type FaultRule } from '../../src/sandbox/faults.js';
import { parseDuration } from '../../src/core/duration.js';

const parse = (spec: string) => parseFaults(spec, (t) => parseDuration(t, 'a burst'));
const refusal = (spec: string) => {
  try {
    parse(spec);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
};

describe('the --faults grammar', () => {
  it('NAME=RATE, comma-separated: 5xx, a status, timeout (or hang), reset, 429 with its burst', () => {
    expect(parse('5xx=10%, timeout=2% ,429=1%/30s,503=0.5%,reset=1%')).toEqual([
      { kind: '5xx', rate: 0.1 },
      { kind: 'timeout', rate: 0.02 },
      { kind: '429', rate: 0.01, burstSeconds: 30 },
      { kind: 'status', status: 503, rate: 0.005 },
      { kind: 'reset', rate: 0.01 },
    ]);
    expect(parse('HANG=5%')).toEqual([{ kind: 'timeout', rate: 0.05 }]);
    expect(parse('')).toEqual([]);
    expect(describeFaults(parse('5xx=10%,timeout=2%,429=1%,503=2.5%'))).toBe('5xx 10%, timeout 2%, 429 1% (bursts of 10s), 503 2.5%');
  });
  it('refuses what it cannot read, in one line naming the part', () => {
    expect(refusal('5xx')).toBe('"5xx" is no fault: write NAME=RATE, like 5xx=10%');
    expect(refusal('5xx=10')).toBe('"5xx=10": give the rate in percent, like 5xx=10%');
    expect(refusal('5xx=0.1')).toBe('"5xx=0.1": give the rate in percent, like 5xx=0.1%');
    expect(refusal('404=5%')).toBe('"404=5%": no fault is called "404"; give 5xx, a status from 500 to 599, timeout, reset or 429');
    expect(refusal('slow=5%')).toBe('"slow=5%": no fault is called "slow"; give 5xx, a status from 500 to 599, timeout, reset or 429');
    expect(refusal('5xx=150%')).toBe('"5xx=150%": a rate is at most 100%');
    expect(refusal('5xx=60%,timeout=50%')).toBe('the rates add up to 110%, more than 100%');
    expect(refusal('5xx=1%,5xx=2%')).toBe('"5xx" is given twice');
    expect(refusal('timeout=1%/5s')).toBe('"timeout=1%/5s": only a 429 burst takes a length (429=1%/30s)');
    expect(refusal('429=1%/0s')).toBe('"429=1%/0s": a burst lasts 1s or more');
  });
});

describe('what each request meets', () => {
  const none = { min: 0, max: 0 };
  const statuses = (rules: FaultRule[], seed: number, n: number) => {
    const draw = new FaultDraw(rules, none, seed, () => 0);
    return Array.from({ length: n }, () => {
      const f = draw.next().fault;
      return f === undefined ? 'ok' : f.kind === 'status' ? String(f.status) : f.kind;
    });
  };
  it('a seed replays the same faults and waits; another seed draws others', () => {
    const rules = parse('5xx=30%,timeout=10%,reset=10%');
    expect(statuses(rules, 7, 200)).toEqual(statuses(rules, 7, 200));
    expect(statuses(rules, 7, 200)).not.toEqual(statuses(rules, 8, 200));
    const waits = (seed: number) => {
      const draw = new FaultDraw([], { min: 100, max: 2000 }, seed);
      return Array.from({ length: 50 }, () => draw.next().latencyMs);
    };
    expect(waits(3)).toEqual(waits(3));
    expect(waits(3).every((ms) => ms >= 100 && ms <= 2000)).toBe(true);
    expect(new Set(waits(3)).size).toBeGreaterThan(40);
    expect(new FaultDraw([], { min: 250, max: 250 }, 1).next().latencyMs).toBe(250);
  });
  it('a request the faults are not aimed at (a wrong key) meets none, and draws as any other', () => {
    const rules = parse('5xx=100%');
    const draw = new FaultDraw(rules, none, 1);
    expect(draw.next(false).fault).toBeUndefined();
    expect(draw.next().fault).toMatchObject({ kind: 'status' });
  });
  it('each fault comes at its rate over many requests (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 20 }),
        (seed, fiveHundreds, timeouts, resets) => {
          const rules = parse(`5xx=${fiveHundreds}%,timeout=${timeouts}%,reset=${resets}%`);
          const n = 5000;
          const seen = statuses(rules, seed, n);
          const share = (pred: (s: string) => boolean) => seen.filter(pred).length / n;
          expect(Math.abs(share((s) => /^50[0234]$/.test(s)) - fiveHundreds / 100)).toBeLessThan(0.03);
          expect(Math.abs(share((s) => s === 'hang') - timeouts / 100)).toBeLessThan(0.03);
          expect(Math.abs(share((s) => s === 'reset') - resets / 100)).toBeLessThan(0.03);
          // 5xx is each of 500, 502, 503, 504.
          if (fiveHundreds >= 20) for (const code of ['500', '502', '503', '504']) expect(seen).toContain(code);
        },
      ),
      { seed: 3807, numRuns: 60 },
    );
  });
  it('a 429 starts a burst: every request refused until it ends, Retry-After counting down', () => {
    let now = 1_000_000;
    const draw = new FaultDraw(parse('429=100%/30s'), none, 5, () => now);
    expect(draw.next().fault).toEqual({ kind: 'status', status: 429, headers: { 'Retry-After': '30', RateLimit: '"validations";r=0;t=30' } });
    now += 12_500;
    expect(draw.next().fault).toMatchObject({ status: 429, headers: { 'Retry-After': '18' } });
    // Once it is over, the rate decides again (here a burst at 1%: the next requests go through).
    const sometimes = new FaultDraw(parse('429=1%/10s'), none, 5, () => now);
    const seen: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const f = sometimes.next().fault;
      seen.push(f ? 'burst' : 'ok');
      now += 1000; // a request a second: a burst refuses the 10 after it
    }
    const bursts = seen.join('').split('ok').filter((run) => run.length > 0).map((run) => run.length / 'burst'.length);
    expect(bursts.length).toBeGreaterThan(5);
    expect(bursts.every((len) => len % 10 === 0)).toBe(true); // a burst drawn right after one ends makes 20
    expect(bursts.filter((len) => len === 10).length).toBeGreaterThan(bursts.length / 2);
  });
});
