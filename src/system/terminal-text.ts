// Text from a file or the service, made safe to print for a person: C0 and C1 control characters, DEL
// and the Unicode bidirectional overrides are shown escaped (\n, \t, \x1b, \u202e…), so that a list cell,
// a status or a server message can never move the cursor, recolour the terminal, set its title, write the
// clipboard (OSC 52) or reorder what is shown. Machine formats (csv, json, ndjson) keep data exact and do
// not use this.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeOne(char: string): string {
  const named = NAMED[char];
  if (named) return named;
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every control character shown as an escape. */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, escapeOne);
}
