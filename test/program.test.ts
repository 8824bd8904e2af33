// The command tree program.ts puts together: a run of `emails` or `domains` builds that command alone (the
// rest of the tree is neither built nor loaded: start-up), anything else gets every command, and every
// command of the tree ends through main.ts (no process.exit) and writes through the run's Io.
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../src/program.js';
import { fakeIo } from './fake-io.js';

const names = (c: Command) => c.commands.map((s) => s.name());
const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];

describe('buildProgram', () => {
  it.each(['emails', 'domains'])('a run of %s builds that command alone', async (first) => {
    const program = await buildProgram({ version: () => '1.0.0', io: fakeIo() }, first);
    expect(names(program)).toEqual([first]);
  });

  it.each([undefined, 'auth', '--help', 'emial'])('anything else (%s) builds every command', async (first) => {
    const program = await buildProgram({ version: () => '1.0.0', io: fakeIo() }, first);
    expect(names(program)).toEqual(['emails', 'domains', 'auth', 'cache', 'sandbox', 'completion', 'help']);
  });

  it('every command writes help through the run\'s Io and throws instead of exiting', async () => {
    const io = fakeIo();
    const program = await buildProgram({ version: () => '1.0.0', io });
    for (const command of all(program)) {
      io.out.text = '';
      expect(() => command.help()).toThrow(expect.objectContaining({ code: 'commander.help' }));
      expect(io.out.text).toMatch(/^Usage: /);
    }
  });
});
