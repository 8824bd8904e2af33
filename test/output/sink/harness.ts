// The sinks' test bench: a fresh folder for each test, and what the tests share.
import { afterEach, beforeEach, vi } from 'vitest';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Sink } from '../../../src/output/sink.js';

/** The test's own folder, made before each test and removed after it (see useTestFolder). */
export let dir: string;

/** Gives each test of the calling file a fresh `dir`; after each test, the spies are restored and `dir` removed. */
export function useTestFolder(): void {
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'idv-sink-'));
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    syncBuiltinESMExports(); // node:fs's named exports (the sinks' write) are the real ones again
    await rm(dir, { recursive: true, force: true });
  });
}

export const isRoot = process.getuid?.() === 0;
export const entries = async () => (await readdir(dir)).sort();

export async function writeThrough(sink: Sink, ...texts: string[]): Promise<void> {
  await sink.ready();
  for (const t of texts) await sink.write(t);
  await sink.commit();
}

/** The error a promise rejects with. */
export async function failure(p: Promise<unknown>): Promise<Error & { kind?: string }> {
  try {
    await p;
  } catch (err) {
    return err as Error & { kind?: string };
  }
  throw new Error('it did not fail');
}

/** A standard output that keeps each block it is handed, as it is handed. */
export function recordingStdout() {
  const blocks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      blocks.push(chunk.toString('latin1'));
      cb();
    },
  });
  return { stream, blocks };
}
