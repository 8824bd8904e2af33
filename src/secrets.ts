// The secrets of a run (the API key in use, proxy credentials) and the one function that keeps them out
// of every message: text from the service, the network or an exception passes through redact() before a
// person sees it. One registry per run, created by main.ts and carried in Io.
const MASK = '****';

/** A secret shorter than this is not searched for: it would mask ordinary words. */
const MIN_SECRET = 4;
/** A secret's start or end searched for alone (an echo cut short) is at least this long, and 60% of it. */
const MIN_PART = 8;

export class Secrets {
  /** Each secret's forms, lower-cased, as they are searched for in a text's plain view (view()). */
  private forms: string[] = [];

  /**
   * Remember a secret, in every form a server or a library might repeat it: as it is (in any case, percent- or
   * JSON-escaped, wholly or in part: view() undoes those), cut short at either end (a server's truncated echo,
   * most of it still there), percent-encoded twice, in base64, reversed. One
   * shorter than `min` is not (an API key shorter than any idv sends never leaves idv: masking it would only
   * rewrite idv's own words).
   */
  add(secret: string | undefined, min = MIN_SECRET): void {
    const trimmed = secret?.trim();
    if (!trimmed || trimmed.length < Math.max(min, MIN_SECRET)) return;
    const b64 = Buffer.from(trimmed).toString('base64');
    const forms = [trimmed, encodeURIComponent(trimmed), b64, b64.replace(/=+$/, ''), [...trimmed].reverse().join('')];
    for (let n = Math.max(MIN_PART, Math.ceil(trimmed.length * 0.6)); n < trimmed.length; n++) forms.push(trimmed.slice(0, n), trimmed.slice(-n));
    for (const form of forms.map(lowerAscii)) if (!this.forms.includes(form)) this.forms.push(form);
    // Longest first, so that a form holding another is masked whole.
    this.forms.sort((a, b) => b.length - a.length);
  }

  /** `text` with every known secret masked. */
  redact(text: string): string {
    if (this.forms.length === 0) return text;
    const { plain, at } = view(text);
    const spans: Array<[number, number]> = [];
    for (const form of this.forms) {
      for (let i = plain.indexOf(form); i !== -1; i = plain.indexOf(form, i + form.length)) spans.push([at[i]!, at[i + form.length]!]);
    }
    if (spans.length === 0) return text;
    spans.sort((a, b) => a[0] - b[0]);
    let out = '';
    let from = 0;
    for (const [start, end] of spans) {
      if (start < from) from = Math.max(from, end); // overlaps the span masked before it
      else [out, from] = [out + text.slice(from, start) + MASK, end];
    }
    return out + text.slice(from);
  }

  /** Whether `text` holds a known secret (a status that does must not be written anywhere). */
  holds(text: string): boolean {
    if (this.forms.length === 0) return false;
    // (Once an answered item: a text without escapes is only lower-cased.)
    const plain = /[%\\]/.test(text) ? view(text).plain : lowerAscii(text);
    return this.forms.some((form) => plain.includes(form));
  }
}

const lowerAscii = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

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
