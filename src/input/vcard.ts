// A vCard file's records: each EMAIL property (its folded lines joined) is one. A property that holds no
// address is skipped, and so is one whose every address is one of its card's EMAIL addresses (a contact named
// by its address: `FN:jane@x.com`); any other property holding an address is a record (when in doubt).
import type { Kind } from '../defaults.js';
import { checkerFor, itemLike } from './check.js';

/** A record as the reader gives it: the property's text, its one cell with --keep-columns. */
export interface VCardRecord {
  value: string;
  fields: string[] | null;
}

export type VCardSkip = 'vCard line without an address' | 'vCard property repeating its EMAIL';

interface Property {
  text: string;
  /** Its lines, the folded ones too. */
  lines: number[];
}

const EMAIL = /^(?:[a-z0-9-]+\.)?email[;:]/i;
const BEGIN = /^begin:vcard\s*$/i;
const END = /^end:vcard\s*$/i;
/** A card held longer than this (an END never written) is given out as it is. */
const MAX_CARD = 1000;

export class VCardReader {
  /** The open card's properties, from its BEGIN line; null outside a card. */
  private card: Property[] | null = null;
  /** The property being read, until a line that does not start with a space or tab ends it. */
  private property: Property | null = null;
  private readonly check: ReturnType<typeof checkerFor>;

  constructor(
    private readonly kind: Kind,
    private readonly keep: boolean,
    private readonly skip: (line: number, why: VCardSkip) => void,
  ) {
    this.check = checkerFor(kind);
  }

  /** One physical line; the records it completes go to `out`. */
  line(text: string, line: number, out: VCardRecord[]): void {
    if (this.property !== null && /^[ \t]/.test(text)) {
      this.property.text += text.slice(1);
      this.property.lines.push(line);
      return;
    }
    this.endProperty(out);
    if (text.trim() !== '') this.property = { text, lines: [line] };
  }

  /** The input ended: what is held goes out. */
  end(out: VCardRecord[]): void {
    this.endProperty(out);
    this.endCard(out);
  }

  private endProperty(out: VCardRecord[]): void {
    const p = this.property;
    if (p === null) return;
    this.property = null;
    if (BEGIN.test(p.text)) {
      this.endCard(out);
      this.card = [p];
    } else if (this.card !== null) {
      this.card.push(p);
      if (END.test(p.text) || this.card.length >= MAX_CARD) this.endCard(out);
    } else this.give([p], out);
  }

  private endCard(out: VCardRecord[]): void {
    if (this.card === null) return;
    this.give(this.card, out);
    this.card = null;
  }

  /** A card's properties (or a line outside any card): records, or skipped lines. */
  private give(properties: readonly Property[], out: VCardRecord[]): void {
    const own = new Set<string>();
    for (const p of properties) if (EMAIL.test(p.text)) for (const key of this.keysIn(p.text)) own.add(key);
    for (const p of properties) {
      if (!EMAIL.test(p.text)) {
        const why = !itemLike(this.kind, p.text) ? 'vCard line without an address' : this.repeats(p.text, own) ? 'vCard property repeating its EMAIL' : null;
        if (why !== null) {
          for (const line of p.lines) this.skip(line, why);
          continue;
        }
      }
      out.push({ value: p.text, fields: this.keep ? [p.text] : null });
    }
  }

  /** Whether every item a property holds is one of its card's EMAIL addresses. */
  private repeats(text: string, own: ReadonlySet<string>): boolean {
    const keys = this.keysIn(text);
    return keys.length > 0 && keys.every((k) => own.has(k));
  }

  /** The items in a property's value, split at its separators (`;` `,` space). */
  private keysIn(text: string): string[] {
    const value = text.slice(text.indexOf(':') + 1);
    const keys: string[] = [];
    for (const part of value.split(/[;,\s]+/)) {
      const item = part === '' ? null : this.check(part);
      if (item) keys.push(item.key.toLowerCase()); // a name repeating the address may change its case
    }
    return keys;
  }
}
