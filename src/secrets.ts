// The secrets of a run (the API key in use, proxy credentials) and the one function that keeps them out
// of every message: text from the service, the network or an exception passes through redact() before a
// person sees it. One registry per run, created by main.ts and carried in Io.
const MASK = '****';

/** A secret shorter than this is not searched for: it would mask ordinary words. */
const MIN_SECRET = 4;

export class Secrets {
  private forms: string[] = [];

  /**
   * Remember a secret, in every form a server or a library might repeat it. One shorter than `min` is not
   * (an API key shorter than any idv sends never leaves idv: masking it would only rewrite idv's own words).
   */
  add(secret: string | undefined, min = MIN_SECRET): void {
    const s = secret?.trim();
    if (!s || s.length < Math.max(min, MIN_SECRET)) return;
    const forms = new Set([s, encodeURIComponent(s), JSON.stringify(s).slice(1, -1), encodeURIComponent(encodeURIComponent(s))]);
    for (const f of forms) if (!this.forms.includes(f)) this.forms.push(f);
    // Longest first, so that a form holding another is masked whole.
    this.forms.sort((a, b) => b.length - a.length);
  }

  /** `text` with every known secret masked. */
  redact(text: string): string {
    let out = text;
    for (const f of this.forms) if (out.includes(f)) out = out.split(f).join(MASK);
    return out;
  }

  /** Whether `text` holds a known secret (a status that does must not be written anywhere). */
  holds(text: string): boolean {
    return this.forms.some((f) => text.includes(f));
  }
}
