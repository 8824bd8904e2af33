// The secrets of a run (the API key in use, proxy credentials) and the one function that keeps them out
// of every message: text from the service, the network or an exception passes through redact() before a
// person sees it. One registry per run, created by main.ts and carried in Io.
// Matching costs time in proportion to the secret and the text, whatever their length: each form is one
// pattern (its Z-array made once), and a text is scanned once per pattern (Z-algorithm matching).
const MASK = '****';

/** A secret shorter than this is not searched for: it would mask ordinary words. */
const MIN_SECRET = 4;
/** A secret's start or end searched for alone (an echo cut short) is at least this long, and 60% of it. */
const MIN_PART = 8;

/** A form searched for: its text (lower-cased), and how much of its start must match (all of it, or a part). */
interface Pattern {
  text: string;
  /** z[i]: how many characters from i match the pattern's start (z[0] is its length). */
  z: Int32Array;
  min: number;
  /** Searched for in the text read backwards: a match is of the secret's end. */
  backwards: boolean;
}

export class Secrets {
  private patterns: Pattern[] = [];
  private readonly seen = new Set<string>();
  /** The shortest text a pattern can match. */
  private shortest = Infinity;

  /**
   * Remember a secret, in every form a server or a library might repeat it: as it is (in any case, percent- or
   * JSON-escaped, wholly or in part: view() undoes those), cut short at either end (a server's truncated echo,
   * most of it still there), percent-encoded twice, in base64, reversed. One shorter than `min` is not (an API
   * key shorter than any idv sends never leaves idv: masking it would only rewrite idv's own words).
   */
  add(secret: string | undefined, min = MIN_SECRET): void {
    const trimmed = secret?.trim();
    if (!trimmed || trimmed.length < Math.max(min, MIN_SECRET)) return;
    const b64 = Buffer.from(trimmed).toString('base64');
    const part = Math.min(trimmed.length, Math.max(MIN_PART, Math.ceil(trimmed.length * 0.6)));
    // The secret's start (60% of it or more) read forwards, its end read backwards; the other forms whole.
    this.remember(trimmed, part, false);
    this.remember(reversed(trimmed), part, true);
    for (const form of [encodeURIComponent(trimmed), b64, b64.replace(/=+$/, ''), [...trimmed].reverse().join('')]) this.remember(form, form.length, false);
  }

  /** `text` with every known secret masked. */
  redact(text: string): string {
    if (text.length < this.shortest) return text;
    const { plain, at } = view(text);
    const ends = this.matches(plain);
    if (ends === null) return text;
    let out = '';
    let from = 0;
    let reach = 0;
    for (let i = 0; i < ends.length; i++) {
      if (ends[i]! <= reach) continue; // no match here, or one inside the span masked before it
      if (i >= reach) out += text.slice(from, at[i]) + MASK;
      reach = ends[i]!;
      from = at[reach]!;
    }
    return out + text.slice(from);
  }

  /** Whether `text` holds a known secret (a status that does must not be written anywhere). */
  holds(text: string): boolean {
    if (text.length < this.shortest) return false;
    // (Once an answered item: a text without escapes is only lower-cased.)
    const plain = /[%\\]/.test(text) ? view(text).plain : lowerAscii(text);
    return this.matches(plain) !== null;
  }

  private remember(form: string, min: number, backwards: boolean): void {
    const text = lowerAscii(form);
    const id = `${backwards ? '<' : '>'}${min}:${text}`;
    if (this.seen.has(id)) return;
    this.seen.add(id);
    this.patterns.push({ text, z: zArray(text), min, backwards });
    this.shortest = Math.min(this.shortest, min);
  }

  /** Where masked spans end, by where they start in `plain` (0: none starts there); null when nothing matched. */
  private matches(plain: string): Int32Array | null {
    const ends = new Int32Array(plain.length + 1);
    let any = false;
    let backwardsPlain: string | null = null;
    for (const p of this.patterns) {
      const t = p.backwards ? (backwardsPlain ??= reversed(plain)) : plain;
      matchStarts(p, t, (i, length) => {
        const [start, end] = p.backwards ? [t.length - i - length, t.length - i] : [i, i + length];
        if (end > ends[start]!) ends[start] = end;
        any = true;
      });
    }
    return any ? ends : null;
  }
}

const lowerAscii = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** The string's UTF-16 units in reverse order (an index in it mirrors one in `s`). */
const reversed = (s: string) => s.split('').reverse().join('');

/** The Z-array of `s`: z[i] is the length of the longest common prefix of `s` and `s` from i. */
function zArray(s: string): Int32Array {
  const z = new Int32Array(s.length);
  if (s.length) z[0] = s.length;
  let l = 0;
  let r = 0; // s[l, r) matches s's start
  for (let i = 1; i < s.length; i++) {
    let k = i < r ? Math.min(z[i - l]!, r - i) : 0;
    while (i + k < s.length && s.charCodeAt(k) === s.charCodeAt(i + k)) k++;
    z[i] = k;
    if (i + k > r) [l, r] = [i, i + k];
  }
  return z;
}

/**
 * Every place in `t` where at least `p.min` characters of the pattern's start match, with how many do: one pass
 * over `t`, as the Z-algorithm does (each character of `t` is compared once past the furthest match so far).
 */
function matchStarts(p: Pattern, t: string, found: (i: number, length: number) => void): void {
  const { text: s, z, min } = p;
  let l = 0;
  let r = 0; // t[l, r) matches s's start
  for (let i = 0; i + min <= t.length; i++) {
    let k = i < r ? Math.min(z[i - l]!, r - i) : 0;
    if (i + k >= r) {
      while (i + k < t.length && k < s.length && s.charCodeAt(k) === t.charCodeAt(i + k)) k++;
      if (i + k > r) [l, r] = [i, i + k];
    }
    if (k >= min) found(i, k);
  }
}

/**
 * The text as a server may have rewritten a secret, undone: percent escapes (`%2F`, `%2f`) and JSON's (`\/`,
 * `\u002f`) decoded, ASCII lower-cased; and where each of its characters starts in the text (`at`, one more
 * for the end).
 */
function view(text: string): { plain: string; at: number[] } {
  if (!/[%\\]/.test(text)) return { plain: lowerAscii(text), at: Array.from({ length: text.length + 1 }, (_, i) => i) };
  let plain = '';
  const at: number[] = [];
  for (let i = 0; i < text.length; ) {
    let ch = text[i]!;
    let len = 1;
    if (ch === '%' && HEX2.test(text.slice(i + 1, i + 3))) [ch, len] = [String.fromCharCode(parseInt(text.slice(i + 1, i + 3), 16)), 3];
    else if (ch === '\\' && text[i + 1] === 'u' && HEX4.test(text.slice(i + 2, i + 6))) [ch, len] = [String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16)), 6];
    else if (ch === '\\' && text[i + 1] !== undefined && '/"\\'.includes(text[i + 1]!)) [ch, len] = [text[i + 1]!, 2];
    at.push(i);
    plain += ch;
    i += len;
  }
  at.push(text.length);
  return { plain: lowerAscii(plain), at };
}
const HEX2 = /^[0-9a-f]{2}$/i;
const HEX4 = /^[0-9a-f]{4}$/i;
