// Bytes to text (src/input/decode.ts): byte-order marks, UTF-8 cut across chunks, code pages, NUL bytes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeText } from '../../src/input/decode.js';
import { makeHome, type Home } from '../helpers.js';
import { run } from '../fake-io.js';

let home: Home;
beforeEach(async () => {
  home = await makeHome();
});
afterEach(async () => {
  await home.cleanup();
});
const file = async (name: string, content: string | Buffer) => {
  const p = join(home.dir, name);
  await writeFile(p, content);
  return p;
};

async function collect(chunks: Buffer[]): Promise<string> {
  let out = '';
  for await (const t of decodeText(Readable.from(chunks), { name: 'test' })) out += t;
  return out;
}

describe('decodeText', () => {
  it('drops a UTF-8 BOM and keeps characters cut across chunks', async () => {
    const bytes = Buffer.from('\ufeffzoë@x.com\nb@y.com\n', 'utf8');
    const cut = bytes.indexOf(0xc3) + 1; // inside ë
    expect(await collect([bytes.subarray(0, cut), bytes.subarray(cut)])).toBe('zoë@x.com\nb@y.com\n');
  });
  it('reads what is not UTF-8 as Windows-1252', async () => {
    expect(await collect([Buffer.from([0x4c, 0xe9, 0x61, 0x92, 0x0d, 0x0a])])).toBe('Léa\u2019\r\n');
  });
  it('reads UTF-16LE with a BOM', async () => {
    const b = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a@b.com\n', 'utf16le')]);
    expect(await collect([b])).toBe('a@b.com\n');
  });
  it('refuses NUL bytes', async () => {
    await expect(collect([Buffer.from([0x61, 0, 0x62])])).rejects.toThrow(/NUL bytes/);
  });
});


describe('encodings', () => {
  it('Excel for Mac "Comma Separated Values" (Mac Roman, lone CR line ends) is read as Mac Roman, not Windows-1252', async () => {
    // Renée Lefèvre, Café Noir; “Zoë” — é=0x8E, è=0x8F, ë=0x91, curly quotes 0xD2/0xD3 in Mac Roman.
    const bytes = Buffer.from('Name,Email,Company\rRen\x8ee Lef\x8fvre,renee@x.com,Caf\x8e Noir\r\xd2Zo\x91\xd3,zoe@fake.com,\r', 'latin1');
    const f = await file('mac.csv', bytes);
    const r = await run(['emails', f, '--sandbox', '-q', '--keep-columns']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('Name,Email,Company,status\nRenée Lefèvre,renee@x.com,Café Noir,ok\n“Zoë”,zoe@fake.com,,fake\n');
    // The same bytes with Windows line ends are what Excel on Windows writes: Windows-1252 (0x8E is Ž there).
    const win = await file('win.csv', Buffer.from('Name,Email\r\n\x8eeljko,z@x.com\r\n', 'latin1'));
    expect((await run(['emails', win, '--sandbox', '-q', '--keep-columns'])).stdout).toBe('Name,Email,status\nŽeljko,z@x.com,ok\n');
  });
});

