// The item → status map of a 2xx answer in the shape the service writes, read without JSON.parse: JSON.parse
// makes every item a property name, which V8 interns in its string table, and a run of unique addresses spent
// more time there than in anything else it does. Only that exact shape is read here — {"emails": {"a@x.com":
// {"status": "ok"}, …}}, with JSON's white space anywhere, no escape in a name or a status, no other member;
// anything else (and anything that is not JSON) is left to JSON.parse (client.ts), so both read an answer alike.

/** JSON's white space: space, tab, line feed, carriage return. */
function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10 || c === 13 || c === 9) i++;
    else return i;
  }
}

/** The index of the quote that closes the string opening at `i`; -1 at an escape or a control character (JSON.parse's case). */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 34) return j;
    if (c === 92 || c < 32) return -1;
  }
  return -1;
}

/** `text` at `i` (after white space) is `token`: the index after it, else -1. */
function expect(text: string, i: number, token: string): number {
  const at = skipSpace(text, i);
  return text.startsWith(token, at) ? at + token.length : -1;
}

/** One `"name": {"status": "word"}` member at `i`: its name, status and end, or null when it is another shape. */
function entryAt(text: string, i: number): { name: string; status: string; end: number } | null {
  if (text.charCodeAt(i) !== 34) return null;
  const nameEnd = stringEnd(text, i);
  if (nameEnd === -1) return null;
  let at = expect(text, nameEnd + 1, ':');
  if (at !== -1) at = expect(text, at, '{');
  if (at !== -1) at = expect(text, at, '"status"');
  if (at !== -1) at = expect(text, at, ':');
  if (at === -1) return null;
  at = skipSpace(text, at);
  if (text.charCodeAt(at) !== 34) return null;
  const statusEnd = stringEnd(text, at);
  if (statusEnd === -1) return null;
  const end = expect(text, statusEnd + 1, '}');
  return end === -1 ? null : { name: text.slice(i + 1, nameEnd), status: text.slice(at + 1, statusEnd), end };
}

/** The answer's map (the last of a repeated name, as JSON.parse keeps), or undefined when it has another shape. */
export function answerMap(text: string, field: string): Map<string, string> | undefined {
  let at = expect(text, 0, '{');
  if (at !== -1) at = expect(text, at, `"${field}"`);
  if (at !== -1) at = expect(text, at, ':');
  if (at !== -1) at = expect(text, at, '{');
  if (at === -1) return undefined;
  const map = new Map<string, string>();
  at = skipSpace(text, at);
  if (text.charCodeAt(at) === 125) at++;
  else {
    for (;;) {
      const entry = entryAt(text, at);
      if (entry === null) return undefined;
      map.set(entry.name, entry.status);
      at = skipSpace(text, entry.end);
      const c = text.charCodeAt(at);
      if (c === 125) break;
      if (c !== 44) return undefined;
      at = skipSpace(text, at + 1);
    }
    at++;
  }
  at = expect(text, at, '}');
  return at !== -1 && skipSpace(text, at) === text.length ? map : undefined;
}
