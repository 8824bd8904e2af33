// Sizes, one grammar for the flags that take one (--max-unpacked, --max-row-size): a number and its unit as
// coreutils reads them, `64K`, `16M`, `1.5G`, `2T` or `16MiB` (powers of 1024), `500KB`, `2GB` (powers of 1000),
// `100B`; case and a space before the unit do not matter. A number without a unit is refused: `16` meant
// megabytes, and taken as bytes it would refuse every input.
import { usageError } from './errors.js';

const UNIT_BYTES: Record<string, number> = {
  b: 1,
  k: 1024, kib: 1024, kb: 1000,
  m: 1024 ** 2, mib: 1024 ** 2, mb: 1000 ** 2,
  g: 1024 ** 3, gib: 1024 ** 3, gb: 1000 ** 3,
  t: 1024 ** 4, tib: 1024 ** 4, tb: 1000 ** 4,
};

/** `16MiB`, `1G`, `500MB` into bytes (whole); `flag` names the flag in the one-line error (exit 2). */
export function parseSize(text: string, flag: string, { min = 1 }: { min?: number } = {}): number {
  const t = text.trim().toLowerCase();
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/.exec(t);
  if (m && m[2] === '') throw usageError(`${flag} "${text.trim()}" has no unit: write ${m[1]}MiB, ${m[1]}GiB or ${m[1]}K (powers of 1024; MB and GB are powers of 1000).`);
  const unit = m ? UNIT_BYTES[m[2]!] : undefined;
  if (!m || unit === undefined) throw usageError(`${flag} takes a size like 64MiB, 1GiB or 500MB, not "${text.trim()}".`);
  const bytes = Math.floor(Number(m[1]) * unit);
  if (bytes < min) throw usageError(`${flag} "${text.trim()}" is too small: give at least ${formatSize(min)}.`);
  if (!Number.isSafeInteger(bytes)) throw usageError(`${flag} "${text.trim()}" is too large.`);
  return bytes;
}

/** A commander argParser for a flag that takes a size. */
export function sizeFlag(flag: string, rule?: { min?: number }): (text: string) => number {
  return (text) => parseSize(text, flag, rule);
}

/** 1073741824 → "1 GiB"; 1572864 → "1.5 MiB"; 512 → "512 B": for messages and help. */
export function formatSize(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i++;
  }
  const shown = i === 0 || Number.isInteger(value) ? String(value) : value.toFixed(1).replace(/\.0$/, '');
  return `${shown} ${units[i]}`;
}
