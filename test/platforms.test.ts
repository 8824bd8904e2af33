// The rules that skip a test where a system lacks what it needs (test/platforms.ts): each is used, listed in
// docs/development.md with what it needs, holds on Linux, and is the only way a test skips by the system.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holdsOn, RULES, type Rule } from './platforms.js';

const TEST = import.meta.dirname;
const ROOT = join(TEST, '..');
const rules = Object.keys(RULES) as Rule[];

/** Every TypeScript file of the suite but the rules' own, with its text. */
const files = readdirSync(TEST, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts') && f !== 'platforms.ts' && f !== 'platforms.test.ts')
  .map((f) => ({ name: relative(ROOT, join(TEST, f)), text: readFileSync(join(TEST, f), 'utf8') }));

/** Where a test skips, or runs only, by the system itself: a skipIf/runIf, an `if (…) return` or a ternary on it. */
const BARE = [
  /\b(?:skipIf|runIf)\([^)]*\b(?:process\.platform|platform\(\))/,
  /\bif\s*\([^)]*\b(?:process\.platform|platform\(\))[^)]*\)\s*(?:\{\s*)?return\b/,
  /\b(?:process\.platform|platform\(\))[^;\n?]*\?\s*(?:it|describe|test)\b/,
];

/** The lines of a text that skip by the system. */
export function bareSkips(text: string): string[] {
  return text.split('\n').filter((line) => BARE.some((re) => re.test(line)));
}

describe('platform rules', () => {
  it('every rule says what it needs in one line and holds on Linux, where .ci/run allows no skipped test', () => {
    for (const rule of rules) {
      expect(RULES[rule].needs, rule).toMatch(/^[^\n]{10,200}$/);
      expect(holdsOn(rule, 'linux'), rule).toBe(true);
    }
  });

  it('every rule skips at least one test, and no test names a rule that is not listed', () => {
    const used = new Set(files.flatMap((f) => [...f.text.matchAll(/\bonlyOn\('(\w+)'\)/g)].map((m) => m[1]!)));
    expect([...used].filter((r) => !(r in RULES))).toEqual([]);
    expect(rules.filter((r) => !used.has(r))).toEqual([]);
  });

  it('docs/development.md lists every rule with the systems where it skips', () => {
    const docs = readFileSync(join(ROOT, 'docs', 'development.md'), 'utf8');
    expect(rules.filter((r) => !new RegExp(`^\\s*- \`${r}\`: `, 'm').test(docs))).toEqual([]);
  });

  it('rules judge the system: FIFOs, modes, signals and links on Linux and macOS, /proc and script(1) on Linux alone, none on Windows', () => {
    expect(rules.filter((r) => holdsOn(r, 'darwin'))).toEqual(['fifo', 'devFiles', 'owners', 'signals', 'symlinks', 'sh', 'npmGlobal']);
    expect(rules.filter((r) => holdsOn(r, 'win32'))).toEqual([]);
    expect(holdsOn('proc', 'freebsd')).toBe(false);
  });

  it('no test file skips by process.platform or os.platform() itself: a named rule does', () => {
    expect(files.flatMap((f) => bareSkips(f.text).map((line) => `${f.name}: ${line.trim()}`))).toEqual([]);
  });

  it('what counts as a skip by the system', () => {
    expect(bareSkips("    if (process.platform !== 'linux') return t.skip();")).toHaveLength(1);
    expect(bareSkips("describe.skipIf(process.platform === 'win32')('x', () => {")).toHaveLength(1);
    expect(bareSkips("it.runIf(platform() !== 'win32')('x', () => {")).toHaveLength(1);
    expect(bareSkips("const check = process.platform === 'win32' ? it.skip : it;")).toHaveLength(1);
    expect(bareSkips("if (process.platform === 'darwin') { return; }")).toHaveLength(1);
    expect(bareSkips("expect(folds).toBe(process.platform === 'darwin' || process.platform === 'win32');")).toEqual([]);
    expect(bareSkips("const io = fakeIo({ platform: 'win32' });")).toEqual([]);
  });
});
