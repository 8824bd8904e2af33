// A lock file: created exclusively, its time renewed while its holder works. One not renewed for `staleMs`
// was left by a run that died (kill -9, power loss) and is taken over: no lock blocks the others for good.
// Its calls are synchronous: each is one small system call, cheaper than a round trip through the thread pool.
import { lstatSync, renameSync, rmSync, utimes, writeFileSync } from 'node:fs';
import { randomHex } from './temp-files.js';

/** A holder renews its lock at most this often. */
const RENEW_MS = 1_000;

export class FileLock {
  private renewed = 0;

  constructor(
    readonly path: string,
    private readonly staleMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Take it now, or take over a stale one; false while a live holder has it (or it cannot be made). */
  take(): boolean {
    for (let tries = 0; tries < 2; tries++) {
      try {
        writeFileSync(this.path, `${this.now()}\n`, { flag: 'wx', mode: 0o600 });
        this.renewed = this.now();
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return false; // cannot be made (a read-only folder)
      }
      if (!this.takeOverStale()) return false;
    }
    return false;
  }

  /** Still at it: the lock's time is renewed (at most once a second). */
  renew(): void {
    if (this.now() - this.renewed < RENEW_MS) return;
    this.renewed = this.now();
    utimes(this.path, this.renewed / 1000, this.renewed / 1000, () => undefined);
  }

  drop(): void {
    try {
      rmSync(this.path, { force: true });
    } catch {
      /* gone already */
    }
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
