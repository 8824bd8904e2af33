// A vCard file's records: each EMAIL property (its folded lines joined), and any other property holding an
// address that is not one of its card's EMAIL addresses (`FN:jane@x.com`). An LDIF file (Thunderbird's export)
// is read the same way: an entry from each `dn:` line, its `mail` and `mozillaSecondEmail` as EMAIL.
import type { Kind } from '../../core/defaults.js';
import { checkerFor, itemLike } from '../items/check.js';

/** A record as the reader gives it: the property's text, its one cell with --keep-columns. */
export interface VCardRecord {
  value: string;
  fields: string[] | null;
}

export type VCardSkip = 'vCard line without an address' | 'vCard property repeating its EMAIL';

interface Property {
  text: string;
  /** Its first line and its last (the folded ones follow it). */
  first: number;
  last: number;
  /** Folded lines past MAX_PROPERTY were not kept; one of them held an `@`. */
  cutAt?: boolean;
  /** vCard 2.1's ENCODING=QUOTED-PRINTABLE: `=C3=BC` for a byte, and `=` at a line's end continues it on the next. */
  qp?: boolean;
}

/** What sets a card format apart. */
export interface CardFormat {
  /** An address property (its record's item is the address). */
  email: RegExp;
  /** A card's first line, and its last (null: the next card's first line or the input's end closes it). */
  begin: RegExp;
  end: RegExp | null;
  /** Whether a card's lines may all be indented (then none is folded). */
  indentable: boolean;
  /** A property's value, past its name (and parameters). */
  value(text: string): string;
  /** What separates the addresses of a value, and the brackets and quotes around them. */
  parts: RegExp;
}

export const VCARD: CardFormat = {
  email: /^(?:[a-z0-9-]+\.)?email[;:]/i,
  begin: /^\s*begin:vcard\s*$/i,
  end: /^\s*end:vcard\s*$/i,
  indentable: true,
  value: (text) => text.slice(text.indexOf(':') + 1),
  parts: /[;,\s()<>"'[\]]+/,
};

export const LDIF: CardFormat = {
  email: /^(?:mail|mozillasecondemail)::?[ \t]/i,
  begin: /^dn::?[ \t]/i,
  end: null,
  indentable: false,
  // `name:: value` is base64 (a value beyond ASCII); a dn's value (a group's `member: cn=Ann,mail=ann@x.com`)
  // is the address it names.
  value: (text) => {
    const at = text.indexOf(':');
    const value = text[at + 1] === ':' ? Buffer.from(text.slice(at + 2).trim(), 'base64').toString('utf8') : text.slice(at + 1).trim();
    return /(?:^|,)\s*mail=([^,]+)/i.exec(value)?.[1]?.trim() ?? value;
  },
  // A dn names its entry's address as `mail=jane@x.com`.
  parts: /[;,=\s()<>"'[\]]+/,
};
/** A property's name and parameters saying its value is quoted-printable (vCard 2.1, Android's and Nokia's exports). */
const QP = /;(encoding=)?quoted-printable[;:]/i;

/** A quoted-printable property with its value decoded (UTF-8, or Latin-1 when its CHARSET says so). */
function qpDecoded(text: string): string {
  const colon = text.indexOf(':');
  const bytes = Buffer.from(text.slice(colon + 1).replace(/=([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1');
  const latin1 = /;charset=(iso-8859-1|latin1|windows-1252)[;:]/i.test(text.slice(0, colon + 1));
  return text.slice(0, colon + 1) + bytes.toString(latin1 ? 'latin1' : 'utf8');
}

/** A card held longer than this (an END never written) is given out as it is. */
const MAX_CARD = 1000;
/** Characters of a folded property kept (a PHOTO's base64 runs to megabytes); what follows is only looked at for an `@`. */
const MAX_PROPERTY = 1 << 20;

export class VCardReader {
  /** The open card's properties, from its BEGIN line; null outside a card. */
  private card: Property[] | null = null;
  /** The property being read, until a line that does not start with a space or tab ends it. */
  private property: Property | null = null;
  /** The open card's lines are indented (its first property's line starts with white space): none is folded. */
  private indented = false;
  private readonly check: ReturnType<typeof checkerFor>;

  constructor(
    private readonly kind: Kind,
    private readonly keep: boolean,
    private readonly skip: (line: number, why: VCardSkip) => void,
    private readonly format: CardFormat = VCARD,
  ) {
    this.check = checkerFor(kind);
  }

  /** One physical line; the records it completes go to `out`. */
  line(text: string, line: number, out: VCardRecord[]): void {
    const p = this.property;
    if (p?.qp && p.text.endsWith('=')) {
      p.text = p.text.slice(0, -1);
      return this.fold(p, text, line);
    }
    const folded = p !== null && /^[ \t]/.test(text);
    // (Whether p is a BEGIN line is asked of its first line only: a regex over a string built by += copies it whole.)
    const afterBegin = folded && this.format.indentable && p.first === p.last && this.format.begin.test(p.text);
    if (folded && !this.indented && !afterBegin) return this.fold(p, text.slice(1), line);
    this.endProperty(out);
    // A BEGIN line is never folded: white space after it is the card's indentation.
    if (afterBegin) this.indented = true;
    const t = this.indented ? text.trim() : text;
    if (t.trim() !== '') this.property = { text: t, first: line, last: line, qp: QP.test(t.slice(0, t.indexOf(':') + 1)) };
  }

  private fold(p: Property, more: string, line: number): void {
    p.last = line;
    if (p.text.length + more.length <= MAX_PROPERTY) p.text += more;
    else p.cutAt ||= more.includes('@');
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
    if (this.format.begin.test(p.text)) {
      this.endCard(out);
      this.card = [];
      this.indented = false;
    }
    if (this.card === null) return this.give([p], out);
    this.card.push(p);
    if (this.format.end?.test(p.text) || this.card.length >= MAX_CARD) this.endCard(out);
  }

  private endCard(out: VCardRecord[]): void {
    if (this.card === null) return;
    this.give(this.card, out);
    this.card = null;
    this.indented = false;
  }

  /** A card's properties (or a line outside any card): records, or skipped lines. */
  private give(properties: readonly Property[], out: VCardRecord[]): void {
    const own = new Set<string>();
    const { email: EMAIL, value: valueOf } = this.format;
    for (const p of properties) if (p.qp) p.text = qpDecoded(p.text);
    for (const p of properties) if (EMAIL.test(p.text)) for (const key of this.keysIn(p.text) ?? []) own.add(key);
    for (const p of properties) {
      const email = EMAIL.test(p.text);
      const why = email || p.cutAt ? null : this.skipped(p.text, own);
      // A domain is read from a property's value, never its name (`item1.X-ABLabel` looks like a host); so is
      // any item of an LDIF file (vCard's `EMAIL;…:` is read by the checker itself).
      const value = (email || this.kind === 'emails') && this.format === VCARD ? p.text : valueOf(p.text);
      if (why === null) out.push({ value, fields: this.keep ? [p.text] : null });
      else for (let l = p.first; l <= p.last; l++) this.skip(l, why);
    }
  }

  /** Why a property other than EMAIL is no record, or null when it is one. */
  private skipped(text: string, own: ReadonlySet<string>): VCardSkip | null {
    if (!itemLike(this.kind, this.format.value(text))) return 'vCard line without an address';
    return this.repeats(text, own) ? 'vCard property repeating its EMAIL' : null;
  }

  /** Whether a property holds items, each one of its card's EMAIL addresses, and no other text with an `@`. */
  private repeats(text: string, own: ReadonlySet<string>): boolean {
    const keys = this.keysIn(text);
    return keys !== null && keys.length > 0 && keys.every((k) => own.has(k));
  }

  /** The items in a property's value (its escapes undone, split at separators and brackets); null when a part holding `@` is none. */
  private keysIn(text: string): string[] | null {
    const value = this.format.value(text).replace(/\\[nN]/g, ' ').replace(/\\(.)/g, '$1');
    const keys: string[] = [];
    for (const part of value.split(this.format.parts)) {
      const item = part === '' ? null : this.check(part);
      if (item) keys.push(item.key.toLowerCase()); // a name repeating the address may change its case
      else if (part.includes('@')) return null;
    }
    return keys;
  }
}
