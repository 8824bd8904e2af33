// Guessing the shape of an input from its first lines: plain list or CSV, delimiter, header, item column.
import type { Kind } from '../defaults.js';
import { usageError, inputError } from '../errors.js';
import { looksLike } from './check.js';

export const DELIMITERS = [',', ';', '\t', '|'] as const;

export interface Layout {
  /** null: a plain list, one item per line. */
  delimiter: string | null;
  /** The header row, when there is one (a plain list can have one too: a single `email` line). */
  header: string[] | null;
  /** 0-based index of the item column. */
  column: number;
  /** Lines to drop before parsing (an Excel `sep=` line). */
  skipFirstLine: boolean;
}

export interface LayoutOverrides {
  column?: string; // NAME or N (1-based)
  delimiter?: string;
  noHeader?: boolean;
}

const EMAIL_HEADERS = new Set([
  'email', 'emails', 'emailaddress', 'emailaddresses', 'mail', 'mailaddress', 'eaddress',
  'courriel', 'adressemail', 'adressemail', 'adresseemail', 'correo', 'correoelectronico',
  'epost', 'emailadresse', 'emailadres', 'posta', 'postaelettronica', 'emailid', 'primaryemail',
  'workemail', 'personalemail', 'contactemail', 'useremail', 'subscriberemail', 'emailfield',
]);
const DOMAIN_HEADERS = new Set([
  'domain', 'domains', 'domainname', 'website', 'websites', 'web', 'site', 'url', 'homepage',
  'host', 'hostname', 'companydomain', 'companywebsite', 'websiteurl', 'companydomainname',
]);

function normaliseHeader(h: string): string {
  return h
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

/** Whether a header names the item column: exact known names first, then names that contain one. */
export function headerScore(kind: Kind, header: string): number {
  const n = normaliseHeader(header);
  if (n.length === 0) return 0;
  const known = kind === 'emails' ? EMAIL_HEADERS : DOMAIN_HEADERS;
  if (known.has(n)) return 2;
  if (kind === 'emails' ? /e?mail|courriel|correo/.test(n) : /domain|website|url|host/.test(n)) return 1;
  return 0;
}

/** Split one line on a delimiter, outside double quotes. Enough for guessing; csv-parse does the real work. */
export function splitLine(line: string, delimiter: string): string[] {
  const out: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '"') {
      if (quoted && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (quoted || field.trim() === '') {
        quoted = !quoted;
      } else {
        field += c;
      }
    } else if (c === delimiter && !quoted) {
      out.push(field);
      field = '';
    } else {
      field += c;
    }
  }
  out.push(field);
  return out;
}

function guessDelimiter(lines: string[]): string | null {
  let best: string | null = null;
  let bestScore = 0;
  for (const d of DELIMITERS) {
    const counts = lines.map((l) => splitLine(l, d).length);
    const freq = new Map<number, number>();
    for (const c of counts) freq.set(c, (freq.get(c) ?? 0) + 1);
    let mode = 1;
    let modeCount = 0;
    for (const [c, n] of freq) if (n > modeCount || (n === modeCount && c > mode)) [mode, modeCount] = [c, n];
    if (mode < 2) continue;
    const score = modeCount / lines.length;
    if (score >= 0.6 && score > bestScore) {
      best = d;
      bestScore = score;
    }
  }
  return best;
}

export function parseDelimiterFlag(value: string): string {
  const v = value.toLowerCase();
  if (v === '\\t' || v === 'tab' || v === '\t') return '\t';
  if (v === 'comma') return ',';
  if (v === 'semicolon') return ';';
  if (v === 'pipe') return '|';
  if ([...value].length !== 1) throw usageError(`--delimiter takes one character (or "tab"), not "${value}".`);
  return value;
}

/**
 * Decide the layout from a sample of the first lines (without line endings, blank ones removed).
 * `name` is used in messages.
 */
export function detectLayout(kind: Kind, sample: string[], overrides: LayoutOverrides, name: string): Layout {
  let skipFirstLine = false;
  let lines = sample;
  let delimiter: string | null = null;
  const sep = /^sep=(.)\s*$/i.exec(lines[0] ?? '');
  if (sep) {
    delimiter = sep[1]!;
    skipFirstLine = true;
    lines = lines.slice(1);
  }
  if (overrides.delimiter !== undefined) delimiter = parseDelimiterFlag(overrides.delimiter);
  else if (!sep) delimiter = guessDelimiter(lines.slice(0, 100));

  const rows = lines.slice(0, 200).map((l) => (delimiter === null ? [l] : splitLine(l, delimiter)));
  const first = rows[0] ?? [];
  const width = Math.max(1, ...rows.map((r) => r.length));

  const itemShare = (col: number, from: number): number => {
    let seen = 0;
    let good = 0;
    for (let i = from; i < rows.length; i++) {
      const v = rows[i]![col]?.trim() ?? '';
      if (v === '') continue;
      seen++;
      if (looksLike(kind, v)) good++;
    }
    return seen === 0 ? 0 : good / seen;
  };

  // Header?
  let hasHeader: boolean;
  const columnFlag = overrides.column;
  const columnIsName = columnFlag !== undefined && !/^\d+$/.test(columnFlag.trim());
  if (overrides.noHeader) hasHeader = false;
  else if (columnIsName) hasHeader = true;
  else if (first.some((c) => headerScore(kind, c) > 0 && !looksLike(kind, c.trim()))) hasHeader = true;
  else if (rows.length >= 2 && !first.some((c) => looksLike(kind, c.trim()))) {
    // No known name, but the first row has no item while the rows below have them: a header.
    let best = 0;
    for (let c = 0; c < width; c++) best = Math.max(best, itemShare(c, 1));
    hasHeader = best >= 0.5 && delimiter !== null;
  } else hasHeader = false;

  const header = hasHeader ? first.map((h) => h.trim()) : null;
  const from = hasHeader ? 1 : 0;

  // Column.
  let column: number;
  if (columnFlag !== undefined) {
    const t = columnFlag.trim();
    if (/^\d+$/.test(t)) {
      column = Number(t) - 1;
      if (column < 0) throw usageError('--column counts from 1.');
    } else {
      const wanted = t.toLowerCase();
      column = (header ?? []).findIndex((h) => h.toLowerCase() === wanted);
      if (column === -1) {
        const names = (header ?? []).map((h) => `"${h}"`).join(', ');
        throw usageError(`${name} has no column named "${t}"${names ? ` (its columns: ${names})` : ''}.`);
      }
    }
  } else if (delimiter === null) {
    column = 0;
  } else {
    column = -1;
    if (header) {
      const matching = header
        .map((h, i) => ({ i, name: headerScore(kind, h), share: itemShare(i, from) }))
        .filter((c) => c.name > 0);
      if (matching.length > 0) {
        matching.sort((a, b) => b.share - a.share || b.name - a.name || a.i - b.i);
        column = matching[0]!.i;
      }
    }
    if (column === -1) {
      for (let c = 0; c < width; c++) {
        if (itemShare(c, from) >= 0.5) {
          column = c;
          break;
        }
      }
    }
    if (column === -1) {
      if (rows.length <= from) column = 0; // nothing but a header (or nothing): no records anyway
      else {
        const what = kind === 'emails' ? 'email addresses' : 'domains';
        throw inputError(`No column of ${name} looks like ${what}; name it with --column NAME or --column N.`);
      }
    }
  }
  return { delimiter, header, column, skipFirstLine };
}
