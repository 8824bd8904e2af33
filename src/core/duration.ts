// Durations, one grammar for every flag that takes one (--max-wait, --cache-ttl, --timeout, sandbox --window,
// sandbox --latency…): a number and its unit, `250ms`, `30s`, `90m`, `1h`, `7d`, `2w`, or several added up
// (`1h30m`). A number without a unit is refused (a guess would cost money or a night's run), except where it has
// always meant seconds (--timeout, sandbox --window: `rule.bareSeconds`), and 0, which needs none.
import { usageError } from './errors.js';

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400, w: 604800 };
/** Each unit's other spellings, as people write them (`30 sec`, `2 hours`). */
const SPELLED: Record<string, string> = {
  msec: 'ms', msecs: 'ms', millisecond: 'ms', milliseconds: 'ms',
  sec: 's', secs: 's', second: 's', seconds: 's',
  min: 'm', mins: 'm', minute: 'm', minutes: 'm',
  hr: 'h', hrs: 'h', hour: 'h', hours: 'h',
  day: 'd', days: 'd',
  wk: 'w', wks: 'w', week: 'w', weeks: 'w',
};
const PART = /(\d+(?:\.\d+)?)\s*([a-z]+)\s*/y;

export interface DurationRule {
  /** A number without a unit is seconds (only where it has always been: --timeout, sandbox --window). */
  bareSeconds?: boolean;
  /** The shortest allowed, in seconds; `above`: it must be longer than that, not equal. */
  min?: number;
  above?: number;
  /** The longest allowed, in seconds. */
  max?: number;
  /** Whole seconds only (a window of the quota). */
  whole?: boolean;
}

/** `90m`, `2h`, `7d`, `1h30m`, `45s`, `250ms` into seconds; `flag` names the flag in the one-line error (exit 2). */
export function parseDuration(text: string, flag: string, rule: DurationRule = {}): number {
  const t = text.trim().toLowerCase();
  const seconds = /^\d+(\.\d+)?$/.test(t) ? bare(t, text, flag, rule) : withUnits(t, text, flag);
  return checked(seconds, text.trim(), flag, rule);
}

/** A commander argParser for a flag that takes a duration. */
export function durationFlag(flag: string, rule: DurationRule = {}): (text: string) => number {
  return (text) => parseDuration(text, flag, rule);
}

function bare(t: string, text: string, flag: string, rule: DurationRule): number {
  if (rule.bareSeconds || Number(t) === 0) return Number(t);
  throw usageError(`${flag} "${text.trim()}" has no unit: write ${t}s, ${t}m, ${t}h or ${t}d (seconds, minutes, hours or days).`);
}

function withUnits(t: string, text: string, flag: string): number {
  let total = 0;
  let end = 0;
  PART.lastIndex = 0;
  for (let m = PART.exec(t); m !== null; m = PART.exec(t)) {
    const unit = SPELLED[m[2]!] ?? m[2]!;
    if (!Object.hasOwn(UNIT_SECONDS, unit)) break;
    total += Number(m[1]) * UNIT_SECONDS[unit]!;
    end = PART.lastIndex;
  }
  if (end === 0 || end !== t.length) throw usageError(`${flag} takes a duration like 90s, 30m, 2h or 7d, not "${text.trim()}".`);
  // Thousandths of a second: 0.1s and 100ms are the same (no binary fraction's tail).
  return Math.round(total * 1000) / 1000;
}

function checked(seconds: number, text: string, flag: string, rule: DurationRule): number {
  if (rule.above !== undefined && !(seconds > rule.above)) throw usageError(`${flag} "${text}" is too short: give more than ${shortest(rule.above)}.`);
  if (rule.min !== undefined && seconds < rule.min) throw usageError(`${flag} "${text}" is too short: give at least ${shortest(rule.min)}.`);
  if (rule.max !== undefined && seconds > rule.max) throw usageError(`${flag} "${text}" is too long: give at most ${shortest(rule.max)}.`);
  if (rule.whole && !Number.isInteger(seconds)) throw usageError(`${flag} "${text}" is not a whole number of seconds.`);
  return seconds;
}

/** A bound in a message: `0s`, `250ms`, `24h`. */
function shortest(seconds: number): string {
  if (seconds > 0 && seconds < 1) return `${Math.round(seconds * 1000)}ms`;
  return formatDuration(seconds);
}

/** 3725 → "1h 2m 5s"; 59 → "59s". */
export function formatDuration(seconds: number): string {
  let s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const parts: string[] = [];
  if (h) parts.push(`${h}h`);
  if (m) parts.push(`${m}m`);
  if (s || parts.length === 0) parts.push(`${s}s`);
  return parts.join(' ');
}
