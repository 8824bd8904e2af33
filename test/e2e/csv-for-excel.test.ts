// A cleaned list that opens right in Excel: a UTF-8 CSV opened by double-click in Excel shows mojibake
// (`RenÃ©e`) unless it begins with the UTF-8 byte-order mark. idv writes the mark when asked (--bom), and keeps
// it in a file when the input had one (an Excel export read back into Excel); standard output gets it only when
// asked (a pipe's reader would take it for text); --no-bom never writes it.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { run } from '../fake-io.js';
import { withSandbox } from './helpers.js';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const LIST = 'email,name\nrenee@example.com,Renée\nzoe@example.com,Zoë\n';
const CLEAN = 'email,name,status\nrenee@example.com,Renée,ok\nzoe@example.com,Zoë,ok\n';

describe('CSV for Excel', () => {
  it('--bom: -o begins with EF BB BF, then the same UTF-8 as without it', async () => {
    await withSandbox({}, async ({ env, home }) => {
      const input = join(home.dir, 'list.csv');
      await writeFile(input, LIST);
      const out = join(home.dir, 'clean.csv');
      expect(await run(['emails', input, '--keep-columns', '--bom', '-o', out, '-q'], { env })).toMatchObject({ exitCode: 0, stdout: '', stderr: '' });
      expect(await readFile(out)).toEqual(Buffer.concat([BOM, Buffer.from(CLEAN)]));
    });
  });

  it('an input with a byte-order mark: kept in -o and --split files, not on standard output, dropped by --no-bom', async () => {
    await withSandbox({}, async ({ env, home }) => {
      const input = join(home.dir, 'export.csv');
      await writeFile(input, Buffer.concat([BOM, Buffer.from(LIST)]));
      const out = join(home.dir, 'clean.csv');
      const split = join(home.dir, 'by-status');
      expect(await run(['emails', input, '--keep-columns', '-o', out, '--split', split, '-q'], { env })).toMatchObject({ exitCode: 0 });
      expect(await readFile(out)).toEqual(Buffer.concat([BOM, Buffer.from(CLEAN)]));
      expect(await readFile(join(split, 'ok.csv'))).toEqual(Buffer.concat([BOM, Buffer.from(CLEAN)]));
      expect((await run(['emails', input, '--keep-columns', '-q'], { env })).stdout).toBe(CLEAN);
      expect((await run(['emails', input, '--keep-columns', '--bom', '-q'], { env })).stdout).toBe('\ufeff' + CLEAN);
      expect(await run(['emails', input, '--keep-columns', '--no-bom', '-o', out, '-q'], { env })).toMatchObject({ exitCode: 0 });
      expect(await readFile(out, 'utf8')).toBe(CLEAN);
    });
  });

  it('--bom where no CSV is written: a usage error, nothing sent', async () => {
    await withSandbox({}, async ({ env, sb }) => {
      const r = await run(['emails', '--item', 'a@example.com', '--bom', '-f', 'json'], { env });
      expect(r).toMatchObject({ exitCode: 2, stdout: '' });
      expect(r.stderr).toContain('--bom is for CSV output');
      expect(sb.requests).toEqual([]);
    });
  });

  // LibreOffice's import, not told a code page (character set 0), reads the mark as Excel does: as the sign of
  // UTF-8, not as text of the first cell.
  const soffice = spawnSync('soffice', ['--version'], { encoding: 'utf8' }).status === 0;
  it.skipIf(!soffice)('a --bom CSV opens in LibreOffice as UTF-8: the mark is no text, every accent is kept', { timeout: 120_000 }, async () => {
    await withSandbox({}, async ({ env, home }) => {
      const input = join(home.dir, 'list.csv');
      await writeFile(input, LIST);
      const out = join(home.dir, 'clean.csv');
      expect(await run(['emails', input, '--keep-columns', '--bom', '-o', out, '-q'], { env })).toMatchObject({ exitCode: 0 });
      const converted = join(home.dir, 'lo');
      const r = spawnSync(
        'soffice',
        [`-env:UserInstallation=file://${join(home.dir, 'lo-profile')}`, '--headless', '--infilter=CSV:44,34,0', '--convert-to', 'xlsx', '--outdir', converted, out],
        { encoding: 'utf8', timeout: 110_000 },
      );
      expect(r.status).toBe(0);
      const back = join(home.dir, 'back');
      const r2 = spawnSync(
        'soffice',
        [`-env:UserInstallation=file://${join(home.dir, 'lo-profile')}`, '--headless', '--convert-to', 'csv:Text - txt - csv (StarCalc):44,34,76', '--outdir', back, join(converted, 'clean.xlsx')],
        { encoding: 'utf8', timeout: 110_000 },
      );
      expect(r2.status).toBe(0);
      expect(await readFile(join(back, 'clean.csv'), 'utf8')).toBe(CLEAN);
    });
  });
});
