// Build step: render every command's --help once, into dist/help/, so that `idv … --help` can print it
// without loading commander (start-up is measured by `npm run bench`); in Windows' and macOS' forms too
// (PowerShell's lines, their folders: help-text.ts forSystem), into dist/help/win32/ and dist/help/darwin/,
// which cli.cts takes there. cli.cts falls back to commander when a file is missing, so a stale or absent
// dist/help only costs time. The man page, dist/idv.1, is rendered from the same commands (man-page.ts).
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
