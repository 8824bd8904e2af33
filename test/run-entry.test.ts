// The program's entry for src/cli.cts (src/run-entry.ts, bundled into dist/program.cjs): exactly what cli.cts uses.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as entry from '../src/run-entry.js';
import { ROOT } from './helpers.js';

describe('run-entry', () => {
  it('gives runCli, fail, Secrets, removeTempFilesNow and Terminal, and nothing else', () => {
    expect(Object.keys(entry).sort()).toEqual(['Secrets', 'Terminal', 'fail', 'removeTempFilesNow', 'runCli']);
    for (const value of Object.values(entry)) expect(typeof value).toBe('function');
  });

  it('what cli.cts takes from the program is what it gives', () => {
    const cli = readFileSync(join(ROOT, 'src', 'cli.cts'), 'utf8');
    const used = new Set([...cli.matchAll(/const \{([^}]+)\} = loadProgram\(\)/g)].flatMap((m) => m[1]!.split(',').map((s) => s.trim())));
    expect(used.size).toBeGreaterThan(0);
    for (const name of used) expect(Object.keys(entry), name).toContain(name);
  });
});
