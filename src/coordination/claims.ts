// Claims: which idv run on this machine is validating which item of a cache scope, so that two runs at once
// pay for an item once (why so, and Windows' rules: docs/choices.md).
// The rule. Beside each scope's log, the claims file is append-only. A run appends `<run id>\t<key hash>\n`
// for each item it is about to send (one O_APPEND write for a group), then reads the file back: the FIRST
// claim of a key in file order, by a run still alive, wins; a later claimant waits for the winner's answer.
// A run releases a key (`<run id>\t-<key hash>\n`) once its answer is settled, cached or not; a run that ends
// removes its heartbeat, which releases all its claims at once.
// Liveness: every run touches its heartbeat, `<scope>.<run id>.run`, every BEAT_MS, and writes its process's
// mark in it (process-mark.ts). A run whose process is gone is dead at once; one whose process runs, once its
// heartbeat is HUNG_MS old (stopped, as by Ctrl-Z); one whose process cannot be seen, once it is STALE_MS old.
// A dead run's claims no longer count.
// Bounded: the file is never truncated nor renamed over (Windows refuses both while another run holds it). A run
// that finds it GROWTH bytes past what it started with, or that joins alone, seals it with a `#seal` line (what
// follows counts for nothing), copies the claims live runs hold before the seal, in file order, into the next
// generation (`<scope>.claims.1`, …), published with link() (of two runs at it, one wins), and removes the
// sealed one. A run that reads the seal reads the next generation from its start, claims there again what it
// claimed after the seal, and releases again what it released after it. A live run's claims are never lost:
// it made its heartbeat before it appended, and the sealing run judges who is alive after its seal.
import { closeSync, constants, existsSync, fstatSync, futimesSync, linkSync, lstatSync, openSync, readdirSync, readSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { KeyHash } from '../core/key-hash.js';
import { KeyTable } from '../core/key-table.js';
import { NOFOLLOW, openAppendable, writeWhole } from '../cache/files.js';
import { FileLock } from '../system/lock.js';
import { markAlive, markText, parseMark, selfMark, type ProcessMark } from '../system/process-mark.js';

/** A run touches its heartbeat this often; one untouched for STALE_MS is dead, or HUNG_MS when its process is seen running. */
const BEAT_MS = 1_000;
const STALE_MS = 10_000;
const HUNG_MS = 60_000;
/** A generation grows this many bytes beyond the claims it started with before the next one is made. */
const GROWTH = 256 * 1024;
/** The next generation is made under a lock held for a moment; one older than this was left by a run that died holding it. */
const LOCK_STALE_MS = 3_000;
/** Claims are read back in pieces of at most this many bytes. */
const READ_BYTES = 1 << 20;
/** The line that seals a generation, written on a line of its own even after a torn one. */
const SEAL = '#seal';
/** A generation's first line: `#idv-claims <bytes of claims copied into it>`. */
const HEADER = '#idv-claims ';

const RUN_CHARS = 12;
const HASH_CHARS = 24;
/** Bits 0..OVERFLOW of a claim mask name other runs (the last one any run beyond); BEFORE: some other run claimed the key. */
const OVERFLOW = 28;
const RUN_BITS = (1 << (OVERFLOW + 1)) - 1;
const BEFORE = 1 << 29;
/** The run of no process: its claim and release of a key in a new generation stand for claims gone (heldBefore). */
const NO_RUN = '0'.repeat(RUN_CHARS);
/** A key of this run whose claim line has not been read back yet. */
const UNREAD = -1;

/** What a run does with a key it claimed: send it, wait for another run's answer, or look in the cache first and send it if it is not there. */
export type Verdict = 'send' | 'wait' | 'look';

export interface ClaimsOptions {
  now?: () => number;
  /** GROWTH (tests make it small). */
  growth?: number;
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
    const run = randomBytes(RUN_CHARS / 2).toString('hex');
    const self = selfMark();
    let fd: number | null = null;
    let claims: Claims | null = null;
    try {
      const { fd: file, gen } = openNewest(dir, scope);
      fd = file;
      const beat = openSync(heartbeatPath(dir, scope, run), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
      if (self) writeWhole(beat, Buffer.from(markText(self), 'latin1'));
      claims = new Claims(dir, scope, run, file, gen, beat, o.now ?? Date.now, self, o.growth ?? GROWTH);
      claims.start();
      return claims;
    } catch {
      if (claims) claims.close();
      else if (fd !== null) closeSync(fd);
      return null;
    }
  }

  private readOffset = 0;
  /** Keys other runs claimed: the runs holding each (mask bits), and BEFORE once any did. */
  private others = new KeyTable();
  /** Some other run's claim was read: until then no key can have been claimed before this run's claim. */
  private othersClaimed = false;
  // Another run was seen (a line of it, or a generation followed): a key no live run holds is looked up in the
  // cache before it is sent, as that run may have answered and let go of it before a seal, no longer read.
  private crowded = false;
  /** This run's keys not yet released: the mask of the runs that claimed each before this run did. */
  private readonly mine = new Map<string, number>();
  /** This run's keys that another run claimed after it, and so waits for. */
  private readonly awaited = new Set<string>();
  private runs: OtherRun[] = [];
  private bitOfRun = new Map<string, number>();
  private readonly hash = new KeyHash();
  private readonly timer: NodeJS.Timeout;
  private lastBeat: number;
  /** The generation's size past which the next one is made: GROWTH beyond the claims copied into it. */
  private limit: number;
  /** Whether this generation's seal was read (it takes no more claims). */
  private sealed = false;
  /** Reading a generation from its start after a move: this run's claims met there that it has released since are released again. */
  private rereading = false;
  /** When this run first found the next generation missing after a seal (made by another run at that moment, or by none). */
  private missingSince: number | null = null;
  /** Keys this run released after a seal, met again as its claims in the next generation: released there again. */
  private releaseAgain: string[] = [];
  /** Bytes of claims read so far (what joining costs: tests hold it bounded). */
  bytesRead = 0;
  /** This run no longer coordinates (another run took it for dead and removed its heartbeat, or the claims file failed): it sends what it has. */
  lost = false;

  private constructor(
    private readonly dir: string,
    private readonly scope: string,
    readonly run: string,
    private fd: number,
    private gen: number,
    private readonly beat: number,
    private readonly now: () => number,
    private readonly self: ProcessMark | null,
    private readonly growth: number,
  ) {
    this.limit = growth;
    this.lastBeat = now();
    this.timer = setInterval(() => this.touch(), BEAT_MS);
    this.timer.unref();
  }

  /** The generation this run uses now (0: `<scope>.claims`). */
  get generation(): number {
    return this.gen;
  }

  /** A file holding claims: a run joining alone starts the next generation (nothing before it counts), else reads them. */
  private start(): void {
    const size = fstatSync(this.fd).size;
    if (size === 0) return;
    if (!otherRuns(this.dir, this.scope, this.run, this.now(), false, this.self).size && this.nextGeneration()) this.readOffset = size;
    this.readNew();
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
    for (const k of keys) this.mine.set(k, UNREAD);
    if (this.sealed) this.readNew(); // moves on if it can: the keys are claimed in the next generation
    if (this.sealed) return; // it cannot yet: they wait (UNREAD), claimed once it can
    const lines = this.lines(keys, false);
    const before = fstatSync(this.fd).size;
    writeWhole(this.fd, lines);
    if (this.passOwnLines(before, lines.length)) {
      // No other run wrote in between: what they claimed before these lines is what this run has read.
      for (const k of keys) this.mine.set(k, this.claimedBefore(k));
    } else this.readNew();
    this.decideUnread();
    this.growing();
  }

  /** Keys whose own lines were read through without being recognised (a torn line another run left before them): decided now. */
  private decideUnread(): void {
    if (this.sealed) return; // claimed again in the next generation
    for (const [k, m] of this.mine) if (m === UNREAD) this.mine.set(k, this.claimedBefore(k));
  }

  /** Past its limit, the generation is followed by the next (this run moves on at once). */
  private growing(): void {
    if (fstatSync(this.fd).size > this.limit && this.nextGeneration()) {
      this.readNew();
      this.decideUnread();
    }
  }

  /** Learn what other runs claimed and released since, and which of them died. */
  poll(): void {
    try {
      this.judge(); // before reading: a run found dead has appended all it ever will
      this.readNew();
      this.decideUnread();
    } catch {
      this.lost = true;
    }
  }

  verdict(key: string): Verdict {
    const m = this.mine.get(key);
    if (m === undefined || this.lost) return 'send';
    if (m === UNREAD || (m & RUN_BITS & ~this.deadMask()) !== 0) return 'wait';
    return (m & BEFORE) !== 0 || this.crowded ? 'look' : 'send';
  }

  /** Whether another run waits for some key this run claimed first and has not released. */
  get waitedOn(): boolean {
    return this.awaited.size > 0 && !this.lost;
  }

  /** These keys are settled (answered or given up): a run waiting on them may go on. */
  release(keys: string[]): void {
    for (const k of keys) this.awaited.delete(k);
    const mine = keys.filter((k) => this.mine.delete(k));
    // After a seal, releases wait for the next generation (its copies of this run's claims are released there).
    if (!mine.length || this.lost || this.sealed) return;
    try {
      const lines = this.lines(mine, true);
      const before = fstatSync(this.fd).size;
      writeWhole(this.fd, lines);
      this.passOwnLines(before, lines.length);
      this.growing();
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

  /**
   * Seal this generation and publish the next, holding the claims live runs hold (nothing to read when this run
   * holds none and no other run is alive); false when another run is at it, or it failed (this one stays in use).
   */
  private nextGeneration(): boolean {
    const lock = new FileLock(join(this.dir, `${this.scope}.claims.lock`), LOCK_STALE_MS, this.now);
    if (!lock.take()) return false;
    const next = generationPath(this.dir, this.scope, this.gen + 1);
    const tmp = `${next}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      // Made by another run (this one has yet to read the seal): never made twice, nor made again once gone.
      if (newestGeneration(readdirSync(this.dir), this.scope) > this.gen) return true;
      writeWhole(this.fd, Buffer.from(`\n${SEAL}\n`)); // the first seal counts
      const live = otherRuns(this.dir, this.scope, this.run, this.now(), true, this.self); // after the seal: see the rule above
      const kept = live.size > 0 || this.mine.size > 0 ? heldBefore(this.fd, live.add(this.run)) : Buffer.alloc(0);
      writeFileSync(tmp, Buffer.concat([Buffer.from(`${HEADER}${kept.length}\n`), kept]), { flag: 'wx', mode: 0o600 });
      publish(tmp, next);
      try {
        unlinkSync(generationPath(this.dir, this.scope, this.gen)); // every run moves on from it
      } catch {
        /* held by a program that does not share deletion (a virus scanner): it stays, unused */
      }
      return true;
    } catch {
      return false;
    } finally {
      rmSync(tmp, { force: true });
      lock.drop();
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

  /** The lines appended since the last read; at a seal, on to the next generation once it is there. */
  private readNew(): void {
    for (let moves = 0; moves < 100; moves++) {
      if (this.sealed && !this.moveOn()) return;
      const size = fstatSync(this.fd).size;
      if (size < this.readOffset) this.readOffset = 0; // cut short by something other than idv: read again
      const read = eachLine(this.fd, this.readOffset, size, (buf, start, end) => this.line(buf, start, end));
      this.readOffset = read.end;
      this.bytesRead += read.bytes;
      if (!this.sealed && !this.claimAgain()) return;
    }
  }

  /** After a move: claims this run made after the seal are made again, releases too; false when there were none. */
  private claimAgain(): boolean {
    this.rereading = false;
    const unread = [...this.mine].filter(([, m]) => m === UNREAD).map(([k]) => k);
    const again = this.releaseAgain;
    this.releaseAgain = [];
    if (!this.moved || (!unread.length && !again.length)) return (this.moved = false);
    this.moved = false;
    writeWhole(this.fd, Buffer.concat([this.lines(unread, false), this.lines(again, true)]));
    return true;
  }

  /** This run has just moved to a new generation: its claims made after the seal are to be made again. */
  private moved = false;

  /** This generation was sealed: read the next one from its start, once it is there. */
  private moveOn(): boolean {
    // The newest: a run that lagged behind two seals finds its claims copied into the newest too.
    let gen = newestGeneration(readdirSync(this.dir), this.scope);
    if (gen <= this.gen) {
      // Its sealer is making it, or died before it did: make it now when no live run holds the lock.
      if (!this.nextGeneration()) {
        this.missingSince ??= this.now();
        if (this.now() - this.missingSince > STALE_MS) this.lost = true; // nobody can make it (a full disk): send
        return false;
      }
      gen = newestGeneration(readdirSync(this.dir), this.scope);
    }
    const fd = openSync(generationPath(this.dir, this.scope, gen), constants.O_RDWR | constants.O_APPEND | NOFOLLOW);
    closeSync(this.fd);
    this.fd = fd;
    this.gen = gen;
    this.sealed = false;
    this.missingSince = null;
    this.readOffset = 0;
    this.limit = this.growth;
    this.others = new KeyTable();
    this.othersClaimed = false;
    this.awaited.clear();
    this.runs = [];
    this.bitOfRun = new Map();
    for (const k of this.mine.keys()) this.mine.set(k, UNREAD); // decided again by their copies' places
    this.releaseAgain = [];
    this.crowded ||= this.mine.size > 0; // what others answered before the seal is read no more (a run joining alone has nothing at stake)
    this.moved = this.rereading = true;
    return true;
  }

  /** One line: a claim or a release, the generation's header, or its seal (true: reading stops); anything else is skipped. */
  private line(buf: Buffer, start: number, end: number): boolean {
    if (buf[start] === 35 /* # */) return this.mark(buf, start, end);
    const release = buf[start + RUN_CHARS + 1] === 45; /* - */
    const at = start + RUN_CHARS + 1 + (release ? 1 : 0);
    if (end - at !== HASH_CHARS || buf[start + RUN_CHARS] !== 9 || !this.parseHash(buf, at)) return false; // not a line of ours: skipped
    const run = buf.toString('latin1', start, start + RUN_CHARS);
    if (run === this.run) {
      if (release) return false;
      const key = buf.toString('latin1', at, end);
      const m = this.mine.get(key);
      if (m === UNREAD) this.mine.set(key, this.claimedBefore(key));
      else if (m === undefined && this.rereading) this.releaseAgain.push(key); // released after the seal
      return false;
    }
    this.crowded = true;
    const bit = this.bitOf(run);
    const v = this.others.getHashed(this.hash) ?? 0;
    if (release) {
      if (bit !== OVERFLOW) this.releasedBy(buf.toString('latin1', at, end), v, bit);
      return false;
    }
    this.othersClaimed = true;
    this.others.setHashed(this.hash, v | (1 << bit) | BEFORE);
    if (this.mine.size === 0) return false;
    const key = buf.toString('latin1', at, end);
    const m = this.mine.get(key);
    if (m !== undefined && m !== UNREAD) this.awaited.add(key); // claimed after this run: that run waits
    return false;
  }

  /** A `#` line: the header gives the generation's limit; the seal stops the reading. */
  private mark(buf: Buffer, start: number, end: number): boolean {
    if (isSeal(buf, start, end)) return (this.sealed = true);
    const text = buf.toString('latin1', start, end);
    if (text.startsWith(HEADER)) this.limit = this.growth + 2 * (Number(text.slice(HEADER.length)) || 0);
    return false;
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

/** Generation 0 is `<scope>.claims`, then `<scope>.claims.1`, `.2`… */
function generationPath(dir: string, scope: string, gen: number): string {
  return join(dir, gen === 0 ? `${scope}.claims` : `${scope}.claims.${gen}`);
}

/** The newest generation among a folder's names (0 when there is none). */
function newestGeneration(names: string[], scope: string): number {
  let newest = 0;
  const prefix = `${scope}.claims.`;
  for (const name of names) {
    const n = name.startsWith(prefix) ? name.slice(prefix.length) : '';
    if (/^[1-9]\d{0,14}$/.test(n)) newest = Math.max(newest, Number(n));
  }
  return newest;
}

/**
 * The newest generation, open: opened after the folder was read, it may have been sealed and removed meanwhile
 * (then created again empty, by O_CREAT, as generation 0 is): when a newer one is there by then, that one.
 */
function openNewest(dir: string, scope: string): { fd: number; gen: number } {
  for (let tries = 0; ; tries++) {
    const gen = newestGeneration(readdirSync(dir), scope);
    let fd: number;
    try {
      fd = gen === 0 ? openAppendable(generationPath(dir, scope, 0)) : openSync(generationPath(dir, scope, gen), constants.O_RDWR | constants.O_APPEND | NOFOLLOW);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && tries < 10) continue;
      throw err;
    }
    if (tries >= 10 || newestGeneration(readdirSync(dir), scope) === gen) return { fd, gen };
    closeSync(fd);
  }
}

/** Put `tmp` in place at `path`, never replacing a file there: a hard link (every system idv runs on), else a rename. */
function publish(tmp: string, path: string): void {
  try {
    linkSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return; // another run made it first: that one counts
    if (!existsSync(path)) renameSync(tmp, path); // a file system without hard links (FAT)
  }
}

function isSeal(buf: Buffer, start: number, end: number): boolean {
  return end - start === SEAL.length && buf.toString('latin1', start, end) === SEAL;
}

/**
 * The claim lines before the first seal of runs in `live` that they have not released since, in file order. A
 * key claimed before its first kept claim (by a run gone, or one that released it) gets a claim and release of
 * no run (NO_RUN) ahead of it, so that its claimant still looks in the cache before it sends (the verdict 'look').
 */
function heldBefore(fd: number, live: Set<string>): Buffer {
  const held = new Map<string, { key: string; after: boolean }>(); // by `<run>\t<key>`, in file order
  const claimed = new Set<string>();
  eachLine(fd, 0, fstatSync(fd).size, (buf, start, end) => {
    if (isSeal(buf, start, end)) return true;
    const release = buf[start + RUN_CHARS + 1] === 45; /* - */
    const at = start + RUN_CHARS + 1 + (release ? 1 : 0);
    if (end - at !== HASH_CHARS || buf[start + RUN_CHARS] !== 9) return false;
    const key = buf.toString('latin1', at, end);
    if (live.has(buf.toString('latin1', start, start + RUN_CHARS))) {
      const id = buf.toString('latin1', start, start + RUN_CHARS + 1) + key;
      if (release) held.delete(id);
      else if (!held.has(id)) held.set(id, { key, after: claimed.has(key) });
    }
    if (!release) claimed.add(key);
    return false;
  });
  const kept = new Set<string>();
  let text = '';
  for (const [id, { key, after }] of held) {
    if (after && !kept.has(key)) text += `${NO_RUN}\t${key}\n${NO_RUN}\t-${key}\n`;
    kept.add(key);
    text += `${id}\n`;
  }
  return Buffer.from(text, 'latin1');
}

/**
 * Each whole line of fd's bytes [from, to), a piece at a time, until `line` answers true (a seal); a line still
 * being written waits for the next read. Where reading stopped (the start of the line that stopped it), and how
 * many bytes were read.
 */
function eachLine(fd: number, from: number, to: number, line: (buf: Buffer, start: number, end: number) => boolean): { end: number; bytes: number } {
  let at = from;
  let bytes = 0;
  while (at < to) {
    const buf = Buffer.alloc(Math.min(READ_BYTES, to - at));
    const got = readSync(fd, buf, 0, buf.length, at);
    bytes += got;
    let start = 0;
    for (let nl = buf.indexOf(10); nl !== -1 && nl < got; nl = buf.indexOf(10, start)) {
      if (line(buf, start, nl)) return { end: at + start, bytes };
      start = nl + 1;
    }
    if (start === 0) break;
    at += start;
  }
  return { end: at, bytes };
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
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | NOFOLLOW);
  try {
    const buf = Buffer.alloc(128);
    return buf.toString('latin1', 0, readSync(fd, buf, 0, buf.length, 0));
  } finally {
    closeSync(fd);
  }
}

/** The other runs of the scope alive (by their heartbeats); with `removeDead`, the heartbeats of dead ones go (and they learn it: Claims.lost). */
function otherRuns(dir: string, scope: string, run: string, now: number, removeDead: boolean, self: ProcessMark | null): Set<string> {
  const alive = new Set<string>();
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(`${scope}.`) || !name.endsWith('.run') || name === `${scope}.${run}.run`) continue;
    const path = join(dir, name);
    if (isAlive(path, now, true, self)) alive.add(name.slice(scope.length + 1, -'.run'.length));
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
