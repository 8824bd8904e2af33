// A lock file: created exclusively, its time renewed while its holder works. One not renewed for `staleMs`
// was left by a run that died (kill -9, power loss) and is taken over: no lock blocks the others for good.
// Its calls are synchronous: each is one small system call, cheaper than a round trip through the thread pool.
import { lstatSync, renameSync, rmSync, utimes, writeFileSync } from 'node:fs';
import { randomHex } from './temp-files.js';

/** A holder renews its lock at most this often. */
const RENEW_MS = 1_000;
/** How often a waiter looks again. */
const POLL_MS = 10;

export class FileLock {
  private renewed = 0;

  constructor(
    readonly path: string,
    private readonly staleMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Take it now, or take over a stale one; false while a live holder has it (or it cannot be made). */
  async take(): Promise<boolean> {
    return this.takeNow();
  }

  /** take(), synchronously: for a holder whose whole work is synchronous (the claims' next generation). */
  takeNow(): boolean {
    return this.attempt() === 'taken';
  }

  /** Take it, waiting for a live holder up to `timeoutMs`; false when it did not come free in time, or cannot be made. */
  async wait(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const until = this.now() + timeoutMs;
    while (!signal?.aborted) {
      const got = this.attempt();
      if (got !== 'held') return got === 'taken';
      if (this.now() >= until) return false;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    return false;
  }

  /** Still at it: the lock's time is renewed (at most once a second). */
  renew(): void {
    if (this.now() - this.renewed < RENEW_MS) return;
    this.renewed = this.now();
    utimes(this.path, this.renewed / 1000, this.renewed / 1000, () => undefined);
  }

  async drop(): Promise<void> {
    this.dropNow();
  }

  dropNow(): void {
    try {
      rmSync(this.path, { force: true });
    } catch {
      /* gone already */
    }
  }

  /** 'held' while a live holder has it; 'failed' when it cannot be made (a read-only folder). */
  private attempt(): 'taken' | 'held' | 'failed' {
    for (let tries = 0; tries < 2; tries++) {
      try {
        writeFileSync(this.path, `${this.now()}\n`, { flag: 'wx', mode: 0o600 });
        this.renewed = this.now();
        return 'taken';
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return 'failed';
      }
      if (!this.takeOverStale()) return 'held';
    }
    return 'held';
  }

  /** A lock older than staleMs is claimed by renaming it: of two runs that found it stale, one rename succeeds. */
  private takeOverStale(): boolean {
    try {
      const st = lstatSync(this.path);
      if (this.now() - st.mtimeMs < this.staleMs) return false; // its holder is alive
      const claimed = `${this.path}.${randomHex(4)}.stale`;
      renameSync(this.path, claimed);
      rmSync(claimed, { recursive: true, force: true });
      return true;
    } catch {
      return false;
    }
  }
}
