// Claims: which idv run on this machine is validating which item of a cache scope, so that two runs at once
// pay for an item once.
//
// The rule. Beside each scope's log, `<scope>.claims` is append-only. A run appends `<run id>\t<key hash>\n`
// for each item it is about to send (one O_APPEND write for a group), then reads the file back: the FIRST
// claim of a key in file order, by a run still alive, wins; a later claimant waits for the winner's answer.
// A run releases a key (`<run id>\t-<key hash>\n`) once its answer is settled, cached or not; a run that ends
// removes its heartbeat, which releases all its claims at once.
// Liveness: every run touches its heartbeat, `<scope>.<run id>.run`, every BEAT_MS, and writes its process's
// mark in it (process-mark.ts). A run whose process is gone is dead at once; one whose process runs is alive
// until its heartbeat is HUNG_MS old (stopped, as by Ctrl-Z); where the process cannot be seen (another pid
// namespace), one not touched for STALE_MS is dead. A dead run's claims no longer count.
// The claims file is emptied only by a run that joins while no other run is alive and the file is larger than
// EMPTY_AT, under a lock. A joining run makes its heartbeat, then looks at the file's size: above EMPTY_AT, it
// waits for the lock; at or below, no emptying can be under way (one needs the size above EMPTY_AT from its
// look to its end, and only grows it), and any emptying after that look sees this run's heartbeat. So a live
// run's claims are never lost. A run that finds no other run alive skips the claims written before it.
import { closeSync, constants, fstatSync, ftruncateSync, futimesSync, lstatSync, openSync, readdirSync, readSync, unlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { KeyHash } from '../key-hash.js';
import { KeyTable } from '../key-table.js';
import { NOFOLLOW, openAppendable, writeWhole } from './files.js';
import { FileLock } from './lock.js';
import { markAlive, markText, parseMark, selfMark, type ProcessMark } from '../process-mark.js';

/** A run touches its heartbeat this often; one untouched for STALE_MS is dead, or HUNG_MS when its process is seen running. */
const BEAT_MS = 1_000;
const STALE_MS = 10_000;
const HUNG_MS = 60_000;
/** The claims file is emptied once it is larger than this, by a run that finds no other run alive. */
const EMPTY_AT = 256 * 1024;
/** The emptying lock is held for a moment; one older than this was left by a run that died holding it. */
const LOCK_STALE_MS = 3_000;
const LOCK_WAIT_MS = 5_000;
/** Claims are read back in pieces of at most this many bytes. */
const READ_BYTES = 1 << 20;

const RUN_CHARS = 12;
const HASH_CHARS = 24;
/** Bits 0..OVERFLOW of a claim mask name other runs (the last one any run beyond); BEFORE: some other run claimed the key. */
const OVERFLOW = 28;
const RUN_BITS = (1 << (OVERFLOW + 1)) - 1;
const BEFORE = 1 << 29;
/** A key of this run whose claim line has not been read back yet. */
const UNREAD = -1;

/** What a run does with a key it claimed: send it, wait for another run's answer, or look in the cache first and send it if it is not there. */
export type Verdict = 'send' | 'wait' | 'look';

export interface ClaimsOptions {
  now?: () => number;
}

interface OtherRun {
  ids: string[];
  dead: boolean;
}

/** The 24 hex digits that name a key in the claims file. */
export function keyHex(key: string): string {
  const h = keyHasher.ofString(key);
  return hex8(h.a) + hex8(h.b) + hex8(h.c);
}
const keyHasher = new KeyHash();

export class Claims {
  /** Join the claims of a scope; null when this folder cannot hold them (the run then sends as if alone). */
  static async join(dir: string, scope: string, o: ClaimsOptions = {}): Promise<Claims | null> {
    const now = o.now ?? Date.now;
    const run = randomBytes(RUN_CHARS / 2).toString('hex');
    const self = selfMark();
    let fd: number | null = null;
    let claims: Claims | null = null;
    try {
      fd = openAppendable(join(dir, `${scope}.claims`));
      const beat = openSync(heartbeatPath(dir, scope, run), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
      if (self) writeWhole(beat, Buffer.from(markText(self), 'latin1'));
      claims = new Claims(dir, scope, run, fd, beat, now, self);
      const size = fstatSync(fd).size; // after the heartbeat: see the rule above
      if (!otherRunsAlive(dir, scope, run, now(), false, self)) claims.readOffset = size; // the claims before are of runs gone
      if (size > EMPTY_AT) await claims.emptyIfAlone();
      return claims;
    } catch {
      if (claims) claims.close();
      else if (fd !== null) closeSync(fd);
      return null;
    }
  }

  private readOffset = 0;
  /** Keys other runs claimed: the runs holding each (mask bits), and BEFORE once any did. */
  private readonly others = new KeyTable();
  /** Some other run's claim was read: until then no key can have been claimed before this run's claim. */
  private othersClaimed = false;
  /** This run's keys not yet released: the mask of the runs that claimed each before this run did. */
  private readonly mine = new Map<string, number>();
  /** This run's keys that another run claimed after it, and so waits for. */
  private readonly awaited = new Set<string>();
  private readonly runs: OtherRun[] = [];
  private readonly bitOfRun = new Map<string, number>();
  private readonly hash = new KeyHash();
  private readonly timer: NodeJS.Timeout;
  private lastBeat: number;
  /** This run no longer coordinates (another run took it for dead and removed its heartbeat, or the claims file failed): it sends what it has. */
  lost = false;

  private constructor(
    private readonly dir: string,
    private readonly scope: string,
    readonly run: string,
    private readonly fd: number,
    private readonly beat: number,
    private readonly now: () => number,
    private readonly self: ProcessMark | null,
  ) {
    this.lastBeat = now();
    this.timer = setInterval(() => this.touch(), BEAT_MS);
    this.timer.unref();
  }

  /** Claim these keys (hex), then read back what every run claimed: what to do with each. */
  claim(keys: string[]): Verdict[] {
    try {
      this.append(keys);
      this.judge();
    } catch {
      this.lost = true; // the claims file failed (a full disk): this run no longer counts on claims, it sends
    }
    return keys.map((k) => this.verdict(k));
  }

  private append(keys: string[]): void {
    const lines = this.lines(keys, false);
    const before = fstatSync(this.fd).size;
    writeWhole(this.fd, lines);
    if (this.passOwnLines(before, lines.length)) {
      // No other run wrote in between: what they claimed before these lines is what this run has read.
      for (const k of keys) this.mine.set(k, this.claimedBefore(k));
      return;
    }
    for (const k of keys) this.mine.set(k, UNREAD);
    this.readNew();
    // Read back, or run into a torn line another run left (killed mid-write): either way, decided now.
    for (const k of keys) if (this.mine.get(k) === UNREAD) this.mine.set(k, this.claimedBefore(k));
  }

  /** Learn what other runs claimed and released since, and which of them died. */
  poll(): void {
    try {
      this.judge(); // before reading: a run found dead has appended all it ever will
      this.readNew();
    } catch {
      this.lost = true;
    }
  }

  verdict(key: string): Verdict {
    const m = this.mine.get(key);
    if (m === undefined || this.lost) return 'send';
    if (m === UNREAD || (m & RUN_BITS & ~this.deadMask()) !== 0) return 'wait';
    return (m & BEFORE) !== 0 ? 'look' : 'send';
  }

  /** Whether another run waits for some key this run claimed first and has not released. */
  get waitedOn(): boolean {
    return this.awaited.size > 0 && !this.lost;
  }

  /** These keys are settled (answered or given up): a run waiting on them may go on. */
  release(keys: string[]): void {
    for (const k of keys) this.awaited.delete(k);
    const mine = keys.filter((k) => this.mine.delete(k));
    if (!mine.length || this.lost) return;
    try {
      const lines = this.lines(mine, true);
      const before = fstatSync(this.fd).size;
      writeWhole(this.fd, lines);
      this.passOwnLines(before, lines.length);
    } catch {
      /* a full disk: the heartbeat's removal at the end releases them */
    }
  }

  /** This run's claim (or release) lines for keys: `<run>\t[-]<key>\n` each. */
  private lines(keys: string[], release: boolean): Buffer {
    const head = `${this.run}\t${release ? '-' : ''}`;
    let size = 0;
    for (const k of keys) size += head.length + k.length + 1;
    const buf = Buffer.allocUnsafe(size);
    let at = 0;
    for (const k of keys) {
      at = putLatin1(buf, at, head);
      at = putLatin1(buf, putLatin1(buf, at, k), '\n');
    }
    return buf;
  }

  /** When no other run wrote since this one last read, its own lines just written are the file's last: not read back. */
  private passOwnLines(before: number, length: number): boolean {
    if (before !== this.readOffset || fstatSync(this.fd).size !== before + length) return false;
    this.readOffset = before + length;
    return true;
  }

  /** Empty the claims file under the lock, when no other run is alive (their dead heartbeats go too). */
  private async emptyIfAlone(): Promise<void> {
    const lock = new FileLock(join(this.dir, `${this.scope}.claims.lock`), LOCK_STALE_MS, this.now);
    if (!(await lock.wait(LOCK_WAIT_MS))) return;
    try {
      if (fstatSync(this.fd).size > EMPTY_AT && !otherRunsAlive(this.dir, this.scope, this.run, this.now(), true, this.self)) {
        ftruncateSync(this.fd, 0);
        this.readOffset = 0;
      }
    } finally {
      await lock.drop();
    }
  }

  /** This run ends: its heartbeat goes, and with it every claim it still holds. */
  close(): void {
    clearInterval(this.timer);
    for (const fd of [this.fd, this.beat]) {
      try {
        closeSync(fd);
      } catch {
        /* closed already */
      }
    }
    try {
      unlinkSync(heartbeatPath(this.dir, this.scope, this.run));
    } catch {
      /* removed by a run that took this one for dead */
    }
  }

  private touch(): void {
    try {
      const t = this.now() / 1000;
      futimesSync(this.beat, t, t);
      this.lastBeat = this.now();
      if (fstatSync(this.beat).nlink === 0) this.lost = true;
    } catch {
      this.lost = true;
    }
  }

  /** The lines appended since the last read, a piece at a time; a line still being written waits for the next read. */
  private readNew(): void {
    const size = fstatSync(this.fd).size;
    if (size < this.readOffset) this.readOffset = 0; // emptied: this run was taken for dead, and its claims went
    while (this.readOffset < size) {
      const buf = Buffer.alloc(Math.min(READ_BYTES, size - this.readOffset));
      const got = readSync(this.fd, buf, 0, buf.length, this.readOffset);
      let start = 0;
      for (let nl = buf.indexOf(10); nl !== -1 && nl < got; nl = buf.indexOf(10, start)) {
        this.line(buf, start, nl);
        start = nl + 1;
      }
      if (start === 0) break;
      this.readOffset += start;
    }
  }

  private line(buf: Buffer, start: number, end: number): void {
    const release = buf[start + RUN_CHARS + 1] === 45; /* - */
    const at = start + RUN_CHARS + 1 + (release ? 1 : 0);
    if (end - at !== HASH_CHARS || buf[start + RUN_CHARS] !== 9 || !this.parseHash(buf, at)) return; // not a line of ours: skipped
    const run = buf.toString('latin1', start, start + RUN_CHARS);
    if (run === this.run) {
      if (release) return;
      const key = buf.toString('latin1', at, end);
      if (this.mine.get(key) === UNREAD) this.mine.set(key, this.claimedBefore(key));
      return;
    }
    const bit = this.bitOf(run);
    const v = this.others.getHashed(this.hash) ?? 0;
    if (release) {
      if (bit !== OVERFLOW) this.releasedBy(buf.toString('latin1', at, end), v, bit);
      return;
    }
    this.othersClaimed = true;
    this.others.setHashed(this.hash, v | (1 << bit) | BEFORE);
    if (this.mine.size === 0) return;
    const key = buf.toString('latin1', at, end);
    const m = this.mine.get(key);
    if (m !== undefined && m !== UNREAD) this.awaited.add(key); // claimed after this run: that run waits
  }

  private releasedBy(key: string, v: number, bit: number): void {
    this.others.setHashed(this.hash, v & ~(1 << bit));
    const m = this.mine.get(key);
    if (m !== undefined && m !== UNREAD) this.mine.set(key, m & ~(1 << bit));
  }

  /** The claims other runs hold on a key now, read before this run's own claim: the runs that come first. */
  private claimedBefore(key: string): number {
    if (!this.othersClaimed) return 0;
    this.parseHash(Buffer.from(key, 'latin1'), 0);
    return this.others.getHashed(this.hash) ?? 0;
  }

  /** Read 24 hex digits into this.hash; false when they are not hex. */
  private parseHash(buf: Buffer, at: number): boolean {
    const a = hexWord(buf, at);
    const b = hexWord(buf, at + 8);
    const c = hexWord(buf, at + 16);
    if (a === null || b === null || c === null) return false;
    this.hash.a = a;
    this.hash.b = b;
    this.hash.c = c;
    return true;
  }

  private bitOf(run: string): number {
    let bit = this.bitOfRun.get(run);
    if (bit === undefined) {
      bit = Math.min(this.runs.length, OVERFLOW);
      if (bit === this.runs.length) this.runs.push({ ids: [], dead: false });
      this.runs[bit]!.ids.push(run);
      this.runs[bit]!.dead = false;
      this.bitOfRun.set(run, bit);
    }
    return bit;
  }

  /** Look at the heartbeats of the runs still taken for alive. Staleness is judged only while this run beats on time itself. */
  private judge(): void {
    const awake = this.now() - this.lastBeat < BEAT_MS * 2.5;
    for (const r of this.runs) {
      if (!r.dead) r.dead = r.ids.every((id) => !isAlive(heartbeatPath(this.dir, this.scope, id), this.now(), awake, this.self));
    }
  }

  private deadMask(): number {
    let mask = 0;
    for (let bit = 0; bit < this.runs.length; bit++) if (this.runs[bit]!.dead) mask |= 1 << bit;
    return mask;
  }
}

function heartbeatPath(dir: string, scope: string, run: string): string {
  return join(dir, `${scope}.${run}.run`);
}

/**
 * A heartbeat that is there, of a process not seen gone, and, when staleness can be judged, touched within
 * HUNG_MS (its process seen running) or STALE_MS (its process out of sight).
 */
function isAlive(path: string, now: number, judgeStale: boolean, self: ProcessMark | null): boolean {
  try {
    const st = lstatSync(path);
    if (!st.isFile()) return false;
    const mark = parseMark(readSmall(path));
    const running = mark ? markAlive(mark, self) : null;
    if (running === false) return false;
    return !judgeStale || now - st.mtimeMs < (running ? HUNG_MS : STALE_MS);
  } catch {
    return false;
  }
}

/** The first bytes of a small file, never following a link nor waiting on a FIFO. */
function readSmall(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | NOFOLLOW);
  try {
    const buf = Buffer.alloc(128);
    return buf.toString('latin1', 0, readSync(fd, buf, 0, buf.length, 0));
  } finally {
    closeSync(fd);
  }
}

/** Whether another run of the scope is alive; with `removeDead`, the heartbeats of dead ones are removed. */
function otherRunsAlive(dir: string, scope: string, run: string, now: number, removeDead: boolean, self: ProcessMark | null): boolean {
  let alive = false;
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(`${scope}.`) || !name.endsWith('.run') || name === `${scope}.${run}.run`) continue;
    const path = join(dir, name);
    if (isAlive(path, now, true, self)) alive = true;
    else if (removeDead) {
      try {
        unlinkSync(path);
      } catch {
        /* another run removed it first */
      }
    }
  }
  return alive;
}

/** Latin-1 text into buf at `at`, a byte a character (a loop: a native write() a key costs more); where it ends. */
function putLatin1(buf: Buffer, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) buf[at++] = text.charCodeAt(i);
  return at;
}

/** A 32-bit word as 8 lowercase hex digits, a byte at a time from a table (every claimed key is written so). */
function hex8(n: number): string {
  return HEX_BYTE[n >>> 24]! + HEX_BYTE[(n >>> 16) & 255]! + HEX_BYTE[(n >>> 8) & 255]! + HEX_BYTE[n & 255]!;
}
const HEX_BYTE = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** 8 lowercase hex digits at buf[at] as a 32-bit word; null when they are not. */
function hexWord(buf: Buffer, at: number): number | null {
  let v = 0;
  for (let i = at; i < at + 8; i++) {
    const ch = buf[i]!;
    const d = ch >= 48 && ch <= 57 ? ch - 48 : ch >= 97 && ch <= 102 ? ch - 87 : -1;
    if (d < 0) return null;
    v = v * 16 + d;
  }
  return v | 0;
}
