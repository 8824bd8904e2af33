// Shared by the cache's tests: a fresh folder per test, and what a run would know of some keys.
import { afterEach, beforeEach } from 'vitest';
import { appendFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openScope, type CacheScope, type ScopeTuning } from '../../src/cache/store.js';
import type { CacheTtl } from '../../src/cache/ttl.js';
import { Plan } from '../../src/plan/plan.js';

export const NOW = 1_800_000_000_000;
export const T = NOW / 1000;
export const BASE = 'https://api.x';
export const EP = '/emails/validate';
/** A snapshot as soon as the log holds more than a few lines. */
export const SMALL: ScopeTuning = { rebuildBytes: 64 };

/** A fresh folder for each test of the file, removed after it; read it through the getter. */
export function folderPerTest(prefix = 'idv-cache-'): () => string {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return () => dir;
}

export interface Options {
  ttl?: CacheTtl | number;
  tuning?: ScopeTuning;
  now?: () => number;
  base?: string;
  endpoint?: string;
}

export function scopeIn(dir: string, o: Options = {}): CacheScope {
  return openScope(dir, o.base ?? BASE, o.endpoint ?? EP, o.ttl ?? 86400, o.now ?? (() => NOW), o.tuning ?? SMALL);
}

/** What a run would know of each key (its cached status, or 'new'), the load's report and how many came from the cache. */
export async function known(dir: string, keys: string[], o: Options = {}) {
  const plan = new Plan();
  const report = await plan.loadCache(scopeIn(dir, o));
  const out = keys.map((k) => {
    const l = plan.lookup(k);
    return l.kind === 'known' ? l.status : 'new';
  });
  plan.close();
  return { out, report, cached: plan.counts.cached };
}

/** A log holding `lines` after its header; its path. */
export async function logWith(dir: string, lines: string[]): Promise<string> {
  const s = scopeIn(dir);
  (await s.load()).results.close(); // creates the log with its header
  await appendFile(s.path, lines.map((l) => l + '\n').join(''));
  return s.path;
}

export const snapshotsIn = async (dir: string) => (await readdir(dir)).filter((n) => n.endsWith('.idx'));

/** A child process that appends `n` results to the log, one O_APPEND write each, as runs do. */
export function appender(path: string, prefix: string, n: number): Promise<number | null> {
  const code = `
    const { appendFileSync } = require('node:fs');
    const ts = Math.floor(Date.now() / 1000);
    for (let i = 0; i < ${n}; i++) appendFileSync(${JSON.stringify(path)}, ts + '\\tok\\t${prefix}' + i + '@x.com\\n');
  `;
  const child = spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
  return new Promise((resolve) => child.on('exit', resolve));
}
