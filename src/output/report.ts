// --report FILE.json: one machine-readable account of a run, written atomically at its end, whatever the
// end (done, quota, spend cap, errors, refused key, interrupted, usage error, failure). Its fields are
// documented in docs/report.md; `format` changes only when a field changes meaning or goes away.
import { IdvError, exitCodeFor, EXIT } from '../core/errors.js';
import type { Secrets } from '../system/secrets.js';
import type { Sink } from './sink.js';
import { ERROR } from '../core/statuses.js';

export const REPORT_FORMAT = 1;

export type Reason = 'done' | 'quota' | 'spend-cap' | 'errors' | 'auth' | 'interrupted' | 'usage' | 'failed';

export interface ReportInput {
  /** As given on the command line; "-" for standard input. */
  path: string;
  /** Its size in bytes; null for standard input. */
  bytes: number | null;
  /** Records read from it. */
  records: number;
}

/** What a run has learnt by its end; everything but the ending. */
export interface RunFacts {
  command: 'emails' | 'domains';
  started: number;
  inputs: ReportInput[];
  output: string | null;
  dryRun: boolean;
  records: number;
  /** Lines that held text and were no records (not the header): rows above it, footer rows, a repeated header. */
  skipped: number;
  unique: number;
  invalid: number;
  fromCache: number;
  statuses: Record<string, number>;
  sent: number;
  requests: number;
  retries: number;
  maxSpend: number | null;
  capped: number;
  quotaStopped: boolean;
  quota: { remaining: number | null; limit: number | null; resetsAt: string | null } | null;
}

export function emptyFacts(command: 'emails' | 'domains', started: number, maxSpend: number | undefined, output: string | undefined, dryRun: boolean): RunFacts {
  return {
    command,
    started,
    inputs: [],
    output: output ?? null,
    dryRun,
    records: 0,
    skipped: 0,
    unique: 0,
    invalid: 0,
    fromCache: 0,
    statuses: {},
    sent: 0,
    requests: 0,
    retries: 0,
    maxSpend: maxSpend ?? null,
    capped: 0,
    quotaStopped: false,
    quota: null,
  };
}

/** The exit code and its one-word reason, from how the run ended (null: it finished; anything else was thrown, undefined too). */
export function ending(err: unknown, f: RunFacts): { exitCode: number; reason: Reason; message: string | null } {
  if (err === null) return { exitCode: EXIT.ok, reason: 'done', message: null };
  if (!(err instanceof IdvError)) return { exitCode: EXIT.failed, reason: 'failed', message: err instanceof Error ? err.message : String(err) };
  const exitCode = exitCodeFor(err.kind, err.signal);
  const reason: Reason = (() => {
    switch (err.kind) {
      case 'quota':
        return f.capped > 0 && !f.quotaStopped ? 'spend-cap' : 'quota';
      case 'failed':
        return (f.statuses[ERROR] ?? 0) > 0 ? 'errors' : 'failed';
      case 'auth':
        return 'auth';
      case 'interrupted':
        return 'interrupted';
      case 'usage':
      case 'input':
        return 'usage';
    }
  })();
  return { exitCode, reason, message: err.message };
}

export function reportJson(version: string, f: RunFacts, err: unknown, now: number, secrets: Secrets): string {
  const end = ending(err, f);
  const report = {
    format: REPORT_FORMAT,
    idv: version,
    command: f.command,
    started: new Date(f.started).toISOString(),
    ended: new Date(now).toISOString(),
    durationMs: now - f.started,
    dryRun: f.dryRun,
    inputs: f.inputs,
    output: f.output,
    records: f.records,
    skipped: f.skipped,
    unique: f.unique,
    invalid: f.invalid,
    statuses: f.statuses,
    fromCache: f.fromCache,
    sent: f.sent,
    requests: f.requests,
    retries: f.retries,
    maxSpend: f.maxSpend,
    capped: f.capped,
    quota: f.quota,
    exitCode: end.exitCode,
    reason: end.reason,
    message: end.message === null ? null : secrets.redact(end.message),
  };
  return JSON.stringify(report, null, 2) + '\n';
}

/**
 * --report FILE through a run: opened with the other outputs, before anything is sent (a folder it cannot be
 * written in is refused then, not found after paying); filled once the run's end is known and put in place with
 * the other outputs, last (commit.ts); or, for a run that ended otherwise (before its outputs were opened,
 * stopped, failed), written at its end. A report that could not be written once is not tried again.
 */
export class ReportFile {
  private sink: Sink | null = null;
  private state: 'none' | 'open' | 'filled' | 'put' | 'failed' = 'none';

  constructor(private readonly make: () => Sink) {}

  /** Open it as the other outputs are (a file's temporary file made beside it); what cannot be written fails here. */
  async open(): Promise<void> {
    const sink = (this.sink = this.make());
    try {
      await sink.ready();
      this.state = 'open';
    } catch (err) {
      this.state = 'failed';
      throw err;
    }
  }

  /** It is not written at all: its path is another output's (the report would replace it). */
  forgo(): void {
    this.state = 'failed';
  }

  /** Give it up with the other outputs (one of them could not be opened): the run's end writes it afresh. */
  async abort(): Promise<void> {
    await this.sink?.abort();
    if (this.state !== 'failed') this.state = 'none';
  }

  /**
   * The report, holding `json`, as an output to put in place with the others; null when it is not a file that is
   * replaced (standard output, a device, a FIFO: written in place at the run's end, after the others).
   */
  async fill(json: string): Promise<Sink | null> {
    const sink = this.sink;
    if (this.state !== 'open' || !sink?.replaces) return null;
    await sink.write(json);
    this.state = 'filled';
    return {
      name: sink.name,
      replaces: true,
      closed: false,
      ready: () => sink.ready(),
      write: (data) => sink.write(data),
      prepare: () => this.step(sink.prepare()),
      commit: async () => {
        await this.step(sink.commit());
        this.state = 'put';
      },
      abort: () => this.abort(),
    };
  }

  /** A step of putting it in place; one that failed is the run's error, and the report is not tried again. */
  private async step(step: Promise<void>): Promise<void> {
    try {
      await step;
    } catch (err) {
      this.state = 'failed';
      throw err;
    }
  }

  /** At the run's end, unless it was put in place with the outputs: `json` written now (afresh, when what was opened was given up or filled). */
  async save(json: string): Promise<void> {
    if (this.state === 'put' || this.state === 'failed') return;
    if (this.state !== 'open') {
      await this.sink?.abort();
      this.sink = this.make();
    }
    this.state = 'put';
    await writeReport(this.sink!, json);
  }
}

/** Write the report to its sink (sinkFor: a file is replaced atomically, keeping its mode; a device is written in place). */
export async function writeReport(sink: Sink, json: string): Promise<void> {
  try {
    await sink.write(json);
    await sink.commit();
  } catch (err) {
    await sink.abort();
    throw err;
  }
}
