// The item → status map of a 2xx answer in the shape the service writes, read without JSON.parse: JSON.parse
// makes every item a property name, which V8 interns in its string table, and a run of unique addresses spent
// more time there than in anything else it does. Only that exact shape is read here — {"emails": {"a@x.com":
// {"status": "ok"}, …}}, with JSON's white space anywhere, no escape in a name or a status, no other member;
// anything else (and anything that is not JSON) is left to JSON.parse (client.ts), so both read an answer alike.

/** No place: a token or string not found. */
const NONE = -1;

/** JSON's white space: space, tab, line feed, carriage return. */
function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10 || c === 13 || c === 9) i++;
    else return i;
  }
}

/** The index of the quote that closes the string opening at `i`; NONE at an escape or a control character (JSON.parse's case). */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 34) return j;
    if (c === 92 || c < 32) return NONE;
  }
  return NONE;
}

/** After `i` (and white space), `tokens` one after another: the index after the last, or NONE. */
function expect(text: string, i: number, ...tokens: string[]): number {
  let at = i;
  for (const token of tokens) {
    if (at === NONE) return NONE;
    at = skipSpace(text, at);
    at = text.startsWith(token, at) ? at + token.length : NONE;
  }
  return at;
}

/** One `"name": {"status": "word"}` member at `i`: its name, status and end, or null when it is another shape. */
function entryAt(text: string, i: number): { name: string; status: string; end: number } | null {
  const nameEnd = text.charCodeAt(i) === 34 ? stringEnd(text, i) : NONE;
  const open = expect(text, nameEnd === NONE ? NONE : nameEnd + 1, ':', '{', '"status"', ':', '"');
  const statusEnd = open === NONE ? NONE : stringEnd(text, open - 1);
  const end = expect(text, statusEnd === NONE ? NONE : statusEnd + 1, '}');
  return end === NONE ? null : { name: text.slice(i + 1, nameEnd), status: text.slice(open, statusEnd), end };
}

/** The answer's map (the last of a repeated name, as JSON.parse keeps), or undefined when it has another shape. */
export function answerMap(text: string, field: string): Map<string, string> | undefined {
  let at = expect(text, 0, '{', `"${field}"`, ':', '{');
  if (at === NONE) return undefined;
  const map = new Map<string, string>();
  at = skipSpace(text, at);
  if (text.charCodeAt(at) !== 125) {
    for (;;) {
      const entry = entryAt(text, at);
      if (entry === null) return undefined;
      map.set(entry.name, entry.status);
      at = skipSpace(text, entry.end);
      if (text.charCodeAt(at) !== 44) break;
      at = skipSpace(text, at + 1);
    }
  }
  at = expect(text, at, '}', '}');
  return at !== NONE && skipSpace(text, at) === text.length ? map : undefined;
}
