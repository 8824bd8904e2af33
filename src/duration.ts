import { usageError } from './errors.js';

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/** Parse `90m`, `2h`, `7d`, `1h30m`, `45s` into seconds. A number without its unit is refused (but 0). */
export function parseDuration(text: string, flag: string): number {
  const t = text.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(t)) {
    // `--cache-ttl 7` meant days, `--max-wait 90` minutes: a guess either way would cost money or a night's run.
    if (Number(t) === 0) return 0;
    throw usageError(`${flag} "${text.trim()}" has no unit: write ${t}s, ${t}m, ${t}h or ${t}d (seconds, minutes, hours or days).`);
  }
  const re = /(\d+(?:\.\d+)?)\s*([smhdw])/gy;
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(t)) !== null) {
    total += Number(m[1]) * UNIT_SECONDS[m[2]!]!;
    matched = re.lastIndex;
  }
  if (matched === 0 || matched !== t.length) {
    throw usageError(`${flag} takes a duration like 90s, 30m, 2h or 7d, not "${text}".`);
  }
  return total;
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
