// Addresses as mail clients, web pages and address books write them (`"Doe, Jane" <jane@x.com>`, `mailto:…`,
// `jane@x.com (Jane)`), the address inside each, and lines of several recipients (a To: line copied from a mail
// client). Unicode format characters (zero-width, direction marks) are never part of an address: copies hold them.

/** Unicode's format characters (general category Cf); made on first use (see check.ts isHostLike). */
let format: RegExp | undefined;
const BEYOND_ASCII = /[^\x00-\x7f]/;

export function withoutFormatChars(text: string): string {
  // Every format character is beyond ASCII: most text needs no Unicode property regex (costly to compile).
  if (!BEYOND_ASCII.test(text)) return text;
  return text.replace((format ??= /\p{Cf}/gu), '');
}

const VCARD_EMAIL = /^(?:[a-z0-9-]+\.)?email(?:;[^:]*)?:/i;

/**
 * The address a mailbox form holds, or the text itself (without format characters and trimmed) when it is no
 * mailbox form. A text holding several addresses (`a@x.com, b@y.com`) is returned as it is: it is no one item.
 */
export function addressIn(text: string): string {
  let t = withoutFormatChars(text).trim();
  // Excel's text formula, as some exports write a cell to keep it text: ="jane@x.com".
  if (t.length > 3 && t.startsWith('="') && t.endsWith('"')) t = t.slice(2, -1).trim();
  // All of it in quotes ("jane@example.com", "Jane <jane@x.com>"); a quoted local part ("a b"@x.com) keeps its quotes.
  if (t.length > 2 && (t[0] === '"' || t[0] === "'") && t.endsWith(t[0]!) && t.indexOf(t[0]!, 1) === t.length - 1) t = t.slice(1, -1).trim();
  const vcard = VCARD_EMAIL.exec(t);
  if (vcard) t = t.slice(vcard[0].length).trim();
  if (t.includes(',') || t.includes(';')) {
    const parts = splitRecipients(t) ?? [];
    const withAt = parts.filter((p) => p.includes('@'));
    if (withAt.length > 1) return t;
    if (withAt.length === 1 && parts.every((p) => p === '' || p === withAt[0])) t = withAt[0]!; // `jane@x.com;`
  }
  if (t.endsWith('>')) {
    const open = t.lastIndexOf('<');
    if (open !== -1 && t.indexOf('@', open) !== -1) t = t.slice(open + 1, -1).trim();
  } else if (t.endsWith(']')) {
    // Outlook's `Jane Doe [mailto:jane@x.com]` (an address literal `jo@[192.0.2.1]` has no mailto: inside).
    const open = t.lastIndexOf('[');
    if (open !== -1 && /^mailto:/i.test(t.slice(open + 1))) t = t.slice(open + 1, -1).trim();
  } else if (t.endsWith(')')) {
    const open = t.lastIndexOf('(');
    const before = open > 0 ? t.slice(0, open).trim() : '';
    if (before.includes('@') && !/\s/.test(before)) t = before;
  }
  if (/^mailto:/i.test(t)) {
    t = t.slice(7);
    const query = t.indexOf('?');
    if (query !== -1) t = t.slice(0, query);
    if (t.includes('%')) {
      try {
        t = decodeURIComponent(t);
      } catch {
        // not percent-encoding after all
      }
    }
    t = t.trim();
  }
  return t;
}

/** One address-shaped token: no white space, an `@` with text on both sides (maybe mistyped: `kim@gmail`). */
export function isAddressShaped(text: string): boolean {
  const at = text.lastIndexOf('@');
  return at > 0 && at < text.length - 1 && !NOT_IN_ONE.test(text);
}
/** What one address (outside quotes) never holds: white space, separators, brackets, quotes, a CSV's `|`. */
const NOT_IN_ONE = /[\s,;<>|"'()[\]\\]/;

/**
 * The recipients of a line that is a list of them, each as written (trimmed), in order: at least one, and every
 * part between separators outside quotes, `<…>` and `(…)` an address or a mailbox form (separators at the end,
 * like Outlook's `;`, end no recipient). Null when the line is anything else (an empty part before a recipient is
 * an empty cell of a table).
 */
export function recipientsOf(line: string): string[] | null {
  // Outlook separates with `;` and leaves a `Doe, Jane <jane@x.com>` name unquoted: cut at `;` alone then.
  const parts = recipientsCut(line, ',;') ?? (line.includes(';') ? recipientsCut(line, ';') : null);
  if (parts !== null && /^mailto:[^?]*$/i.test(parts[0]!)) withoutMailtoQuery(parts);
  return parts;
}

/** A mailto: link to several addresses (`mailto:a@x.com,b@x.com?subject=Hi`): its query belongs to none of them. */
function withoutMailtoQuery(parts: string[]): void {
  for (let i = 1; i < parts.length && !/[\s<>()"]/.test(parts[i]!); i++) {
    const query = parts[i]!.indexOf('?');
    if (query === -1) continue;
    parts[i] = parts[i]!.slice(0, query);
    parts.splice(i + 1); // the rest is the query's (`?subject=Hello, world`)
    return;
  }
}

function recipientsCut(line: string, separators: string): string[] | null {
  const parts = splitRecipients(line, separators);
  if (parts === null) return null;
  while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop(); // `a@x.com;` as Outlook copies it
  if (parts.some((p) => p === '') || !parts.every((p) => isAddressShaped(addressIn(p)))) return null;
  return parts;
}

/**
 * A line cut at `,` and `;` outside double quotes, angle brackets and parentheses, each part trimmed; null
 * when a quote, bracket or parenthesis is left open (no list, then).
 */
export function splitRecipients(line: string, separators = ',;'): string[] | null {
  const parts: string[] = [];
  let quoted = false;
  let angle = 0;
  let paren = 0;
  let from = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '<') angle++;
    else if (c === '>') angle = Math.max(0, angle - 1);
    else if (c === '(') paren++;
    else if (c === ')') paren = Math.max(0, paren - 1);
    else if (separators.includes(c) && angle === 0 && paren === 0) {
      parts.push(line.slice(from, i).trim());
      from = i + 1;
    }
  }
  if (quoted || angle > 0 || paren > 0) return null;
  parts.push(line.slice(from).trim());
  return parts;
}
