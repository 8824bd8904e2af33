// What a loaded cache scope knows, key by key (src/cache/results.ts): the log's lines this run read, over the
// snapshot for the rest; the latest line of a key counts (one no longer fresh hides an older answer); each key
// counted once as from the cache ("first" the first time it is met), also when another run answers it again later.
import { describe, expect, it } from 'vitest';
import { CachedResults } from '../../src/cache/results.js';
import type { CacheHit, Snapshot } from '../../src/cache/snapshot.js';
import { KeyHash } from '../../src/core/key-hash.js';

const bytes = (key: string) => Buffer.from(`\t${key}\n`);
/** A log line's key noted as this run read it (its status, or null: no longer fresh). */
const note = (r: CachedResults, key: string, status: string | null) => r.note(bytes(key), 1, 1 + Buffer.byteLength(key), status);
const noteLater = (r: CachedResults, key: string, status: string | null) => r.noteLater(bytes(key), 1, 1 + Buffer.byteLength(key), status);
const find = (r: CachedResults, key: string) => r.find(new KeyHash().ofString(key));

/** A snapshot of these answers, which marks a key met as the real one does (unless asked not to). */
function snapshotOf(answers: Record<string, string>): Snapshot & { closed: boolean } {
  const byHash = new Map(Object.entries(answers).map(([k, s]) => [new KeyHash().ofString(k).a, { status: s, met: false }]));
  return {
    covered: 0,
    lines: byHash.size,
    entries: byHash.size,
    closed: false,
    find(h: KeyHash, mark = true): CacheHit | null {
      const e = byHash.get(h.a);
      if (!e) return null;
      const hit = { status: e.status, first: !e.met };
      if (mark) e.met = true;
      return hit;
    },
    all: () => {
      throw new Error('not used');
    },
    close() {
      this.closed = true;
    },
  };
}

describe('CachedResults', () => {
  it("a key's answer, counted once: the first find is its first meeting, the next ones not", () => {
    const r = new CachedResults();
    note(r, 'ann@x.com', 'ok');
    expect(find(r, 'ann@x.com')).toEqual({ status: 'ok', first: true });
    expect(find(r, 'ann@x.com')).toEqual({ status: 'ok', first: false });
    expect(find(r, 'bob@x.com')).toBeNull();
    note(r, 'bücher@x.de', 'disposable');
    expect(find(r, 'bücher@x.de')).toEqual({ status: 'disposable', first: true });
  });

  it('the latest line of a key counts; one no longer fresh hides the answer before it', () => {
    const r = new CachedResults();
    note(r, 'a@x.com', 'ok');
    note(r, 'a@x.com', 'fake');
    note(r, 'b@x.com', 'ok');
    note(r, 'b@x.com', null);
    expect(find(r, 'a@x.com')).toEqual({ status: 'fake', first: true });
    expect(find(r, 'b@x.com')).toBeNull();
  });

  it("the snapshot answers what the log's lines do not, and a line no longer fresh hides the snapshot's answer", () => {
    const snapshot = snapshotOf({ 'old@x.com': 'alias', 'gone@x.com': 'ok' });
    const r = new CachedResults(snapshot);
    note(r, 'new@x.com', 'ok');
    note(r, 'gone@x.com', null);
    expect(find(r, 'old@x.com')).toEqual({ status: 'alias', first: true });
    expect(find(r, 'old@x.com')).toEqual({ status: 'alias', first: false });
    expect(find(r, 'gone@x.com')).toBeNull();
    expect(find(r, 'new@x.com')).toEqual({ status: 'ok', first: true });
    expect(find(r, 'nowhere@x.com')).toBeNull();
  });

  it('a line another run wrote since: its answer, still counted once for a key this run had met (in the log or the snapshot)', () => {
    const r = new CachedResults(snapshotOf({ 'snap@x.com': 'ok' }));
    expect(find(r, 'snap@x.com')?.first).toBe(true); // met in the snapshot
    noteLater(r, 'snap@x.com', 'fake');
    expect(find(r, 'snap@x.com')).toEqual({ status: 'fake', first: false });
    note(r, 'met@x.com', 'ok');
    expect(find(r, 'met@x.com')?.first).toBe(true);
    noteLater(r, 'met@x.com', 'fake');
    expect(find(r, 'met@x.com')).toEqual({ status: 'fake', first: false });
    noteLater(r, 'fresh@x.com', 'disposable');
    expect(find(r, 'fresh@x.com')).toEqual({ status: 'disposable', first: true });
    noteLater(r, 'met@x.com', null);
    expect(find(r, 'met@x.com')).toBeNull();
  });

  it('close() lets the snapshot go; what the log told is still known', () => {
    const snapshot = snapshotOf({ 'old@x.com': 'alias' });
    const r = new CachedResults(snapshot);
    note(r, 'new@x.com', 'ok');
    r.close();
    expect(snapshot.closed).toBe(true);
    expect(find(r, 'old@x.com')).toBeNull();
    expect(find(r, 'new@x.com')).toEqual({ status: 'ok', first: true });
  });
});
