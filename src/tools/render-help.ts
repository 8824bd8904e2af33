// Build step: every command's --help into dist/help/ (and Windows' and macOS' forms into dist/help/win32/ and
// darwin/), so that cli.cts prints it without loading commander; a missing file only costs it that time. And the
// man page, dist/idv.1, from the same commands (man-page.ts).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { buildProgram } from '../program.js';
import type { Io } from '../system/io.js';
import { manPage } from './man-page.js';

const version = () =>
  (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

function render(cmd: Command, path: string[], dir: URL): void {
  let text = '';
  cmd.configureOutput({ writeOut: (s) => (text += s), getOutHelpWidth: () => 80 });
  cmd.outputHelp();
  writeFileSync(new URL(`${path.join('-') || 'idv'}.txt`, dir), text);
  for (const sub of cmd.commands) render(sub, [...path, sub.name()], dir);
}
for (const [platform, folder] of [[undefined, '../help/'], ['win32', '../help/win32/'], ['darwin', '../help/darwin/']] as const) {
  const dir = new URL(folder, import.meta.url);
  mkdirSync(dir, { recursive: true });
  // Renders help only, runs no command: an Io that names the system and nothing else.
  render(await buildProgram({ version, io: (platform ? { platform } : undefined) as unknown as Io }), [], dir);
}
writeFileSync(new URL('../idv.1', import.meta.url), manPage(await buildProgram({ version, io: undefined as unknown as Io }), version()));
