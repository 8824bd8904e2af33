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
    const trimmed = secret?.trim();
    if (!trimmed || trimmed.length < Math.max(min, MIN_SECRET)) return;
    const forms = new Set([trimmed, encodeURIComponent(trimmed), JSON.stringify(trimmed).slice(1, -1), encodeURIComponent(encodeURIComponent(trimmed))]);
    for (const form of forms) if (!this.forms.includes(form)) this.forms.push(form);
    // Longest first, so that a form holding another is masked whole.
    this.forms.sort((a, b) => b.length - a.length);
  }

  /** `text` with every known secret masked. */
  redact(text: string): string {
    let out = text;
    for (const form of this.forms) if (out.includes(form)) out = out.split(form).join(MASK);
    return out;
  }

  /** Whether `text` holds a known secret (a status that does must not be written anywhere). */
  holds(text: string): boolean {
    return this.forms.some((form) => text.includes(form));
  }
}
