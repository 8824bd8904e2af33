// Temporary files (src/system/temp-files.ts): named for the process writing them, and a killed run's leftovers
// beside an output removed by the next run that writes it; never a live process's, nor one it cannot see.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeLeftovers, tempPathBeside } from '../../src/system/temp-files.js';
import { selfMark } from '../../src/system/process-mark.js';
import { onlyOn } from '../platforms.js';

describe('temporary files beside an output', () => {
  onlyOn('proc').it('are named for this process: a later run removes those of a process that no longer runs, and only those', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idv-temp-'));
    try {
      const out = join(dir, 'clean.csv');
      const self = selfMark();
      expect(self).not.toBeNull(); // Linux, with /proc
      const ns = self!.namespace.replace(/\D/g, '');
      const mine = tempPathBeside(out);
      expect(mine).toMatch(new RegExp(`/\\.clean\\.csv\\.${ns}-${self!.pid}-${self!.started}\\.[0-9a-f]{8}\\.tmp$`));
      const gone = spawnSync('true').pid!; // a process that has ended: its id, with a start time no process has
      const names = {
        dead: `.clean.csv.${ns}-${gone}-1.abcd1234.tmp`,
        live: mine.slice(dir.length + 1),
        otherNamespace: `.clean.csv.1-${gone}-1.abcd1234.tmp`,
        otherOutput: `.other.csv.${ns}-${gone}-1.abcd1234.tmp`,
        unmarked: `.clean.csv.abcd1234.tmp`,
        data: 'clean.csv',
      };
      for (const name of Object.values(names)) writeFileSync(join(dir, name), '');
      await removeLeftovers(out);
      expect(readdirSync(dir).sort()).toEqual(Object.values(names).filter((n) => n !== names.dead).sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
