// The CLI's face of a run (src/commands/validate/pipeline.ts): the engine's results, in input order, to the writer
// (--only and --exclude applied), the outputs put in place only once every result is in, the report's after the
// others; a signal stops the run with nothing put in place; a reader gone away ends it quietly; the --wait
// countdown said once off a terminal. A scripted client stands for the service, an in-memory sink for -o.
import { describe, expect, it } from 'vitest';
import type { Client, Outcome } from '../../../src/api/client.js';
import { validateCommand, type ValidateOptions } from '../../../src/commands/validate/flags.js';
import { runPipeline, type Pipeline } from '../../../src/commands/validate/pipeline.js';
import { RunLog } from '../../../src/commands/validate/run-log.js';
import type { InputRecord } from '../../../src/input/records/record.js';
import { createFormatter } from '../../../src/output/format.js';
import type { Progress } from '../../../src/system/progress.js';
import type { Sink } from '../../../src/output/sink.js';
import { Plan } from '../../../src/plan/plan.js';
import { fakeIo } from '../../fake-io.js';

async function options(argv: string[]): Promise<ValidateOptions> {
  let got: ValidateOptions | undefined;
  await validateCommand('emails', undefined, async (o) => void (got = o)).parseAsync(argv, { from: 'user' });
  return got!;
}

/** An in-memory -o: what was written, and whether it was put in place, given up, or is still open. */
function memorySink(name: string, log: string[]): Sink & { text: string; state: string; closed: boolean } {
  const sink = {
    text: '',
    state: 'open',
    closed: false,
    replaces: true,
    name,
    ready: async () => undefined,
    async write(data: string | Uint8Array) {
      sink.text += typeof data === 'string' ? data : Buffer.from(data).toString();
    },
    prepare: async () => undefined,
    async commit() {
      sink.state = 'committed';
      log.push(`commit ${name}`);
    },
    async abort() {
      if (sink.state === 'open') sink.state = 'aborted';
    },
  };
  return sink;
}

/** A client answering each batch by `answer` (ok for all, by default), after `gate` when given. */
function client(answer: (items: string[], call: number) => Outcome | Promise<Outcome> = (items) => ({ type: 'ok', results: new Map(items.map((i) => [i, i.includes('mailinator') ? 'disposable' : 'ok'])), rate: {} })): Client & { sent: string[][] } {
  const sent: string[][] = [];
  return {
    sent,
    async validate(_e, _f, items, signal) {
      sent.push(items);
      if (signal.aborted) throw signal.reason;
      return answer(items, sent.length);
    },
    close: async () => undefined,
  };
}

const records = (...values: string[]): AsyncIterable<InputRecord[]> =>
  (async function* () {
    yield values.map((value) => ({ value, fields: null }));
  })();

const silent = (): Progress => ({ live: false, update: () => undefined, log: () => undefined, stop: () => undefined });

async function pipeline(argv: string[], o: { records: AsyncIterable<InputRecord[]>; client?: Client; io?: ReturnType<typeof fakeIo>; sink?: Sink; progress?: Progress; alsoCommit?: Pipeline['alsoCommit'] }) {
  const opts = await options(argv);
  const io = o.io ?? fakeIo();
  const log: string[] = [];
  const sink = (o.sink as ReturnType<typeof memorySink>) ?? memorySink('out.csv', log);
  const formatter = await createFormatter('csv', { column: 'email', keepColumns: false, header: null, delimiter: null });
  const runLog = new RunLog(io, opts.verbose);
  const p: Pipeline = {
    options: opts,
    io,
    target: { baseUrl: 'https://api.example.test' } as Pipeline['target'],
    client: o.client ?? client(),
    plan: new Plan(),
    cache: null,
    records: o.records,
    main: { formatter, sink },
    split: null,
    progress: o.progress ?? silent(),
    log: runLog,
    alsoCommit: o.alsoCommit,
  };
  const result = await runPipeline(p).then(
    (done) => ({ done, error: null }),
    (error: unknown) => ({ done: null, error: error as Error & { kind?: string } }),
  );
  return { ...result, sink, io, log, plan: p.plan };
}

describe('runPipeline', () => {
  it('every record in input order to -o, put in place once all are in; the counts per status', async () => {
    const c = client();
    const r = await pipeline(['-q'], { records: records('ann@example.com', 'nope', 'bob@mailinator.com', 'ann@example.com'), client: c });
    expect(r.error).toBeNull();
    expect(r.sink.text).toBe('email,status\nann@example.com,ok\nnope,invalid\nbob@mailinator.com,disposable\nann@example.com,ok\n');
    expect(r.sink.state).toBe('committed');
    expect(Object.fromEntries(r.done!.counts)).toEqual({ ok: 2, invalid: 1, disposable: 1 });
    expect(c.sent).toEqual([['ann@example.com', 'bob@mailinator.com']]);
  });

  it('--only and --exclude: only the records asked for are written; each is still validated', async () => {
    const only = await pipeline(['-q', '--only', 'disposable'], { records: records('ann@example.com', 'bob@mailinator.com') });
    expect(only.sink.text).toBe('email,status\nbob@mailinator.com,disposable\n');
    const exclude = await pipeline(['-q', '--exclude', 'disposable,invalid'], { records: records('ann@example.com', 'x', 'bob@mailinator.com') });
    expect(exclude.sink.text).toBe('email,status\nann@example.com,ok\n');
  });

  it("the report's outputs: asked for once every result is in, with the run's end, and put in place after the others", async () => {
    const log: string[] = [];
    const sink = memorySink('out.csv', log);
    const report = memorySink('run.json', log);
    let told: unknown = null;
    const r = await pipeline(['-q'], {
      records: records('ann@example.com'),
      sink,
      alsoCommit: async (done) => {
        told = Object.fromEntries(done.counts);
        return [report];
      },
    });
    expect(r.error).toBeNull();
    expect(told).toEqual({ ok: 1 });
    expect(log).toEqual(['commit out.csv', 'commit run.json']);
  });

  it('a signal while a request is in flight: interrupted (its signal), -o given up, nothing put in place', async () => {
    const stop = new AbortController();
    let answer: () => void = () => undefined;
    const held = client(async (items) => {
      await new Promise<void>((r) => (answer = r));
      return { type: 'ok', results: new Map(items.map((i) => [i, 'ok'])), rate: {} };
    });
    const io = fakeIo({ signal: stop.signal });
    const running = pipeline(['-q'], { records: records('ann@example.com', 'bob@example.com'), client: held, io });
    while (held.sent.length === 0) await new Promise((r) => setImmediate(r));
    stop.abort('SIGTERM');
    answer(); // within the grace: cached in a real run, never written
    const r = await running;
    expect(r.error).toMatchObject({ kind: 'interrupted', signal: 'SIGTERM' });
    expect(r.sink.state).toBe('aborted');
  });

  it('a reader of standard output gone away (EPIPE, which the sink takes as its close): the run ends quietly, null', async () => {
    const sink = memorySink('standard output', []);
    const write = sink.write;
    Object.assign(sink, {
      replaces: false,
      async write(data: string | Uint8Array) {
        await write(data);
        sink.closed = true; // as stdoutSink says after an EPIPE
      },
    });
    const r = await pipeline(['-q'], { records: records('ann@example.com', 'bob@example.com'), sink });
    expect(r.error).toBeNull();
    expect(r.done).toBeNull();
    expect(sink.state).not.toBe('committed');
  });

  it('--wait off a terminal: the wait for the quota said once, in one line with its end; -q says nothing', async () => {
    const quota = (items: string[], call: number): Outcome =>
      call === 1 ? { type: 'quota', rate: { remaining: 0, reset: 0 } } : { type: 'ok', results: new Map(items.map((i) => [i, 'ok'])), rate: {} };
    const said = await pipeline(['--wait'], { records: records('ann@example.com'), client: client(quota) });
    expect(said.error).toBeNull();
    expect(said.io.err.text).toMatch(/^idv: Quota used up; waiting \d+s for it to reset \(at \d\d:\d\d \S+\), as --wait asks\.\n$/);
    expect(said.sink.text).toBe('email,status\nann@example.com,ok\n');
    const quiet = await pipeline(['--wait', '-q'], { records: records('ann@example.com'), client: client(quota) });
    expect(quiet.io.err.text).toBe('');
  });

  it('--wait on a terminal: the countdown is the spinner line, not a line of its own', async () => {
    const updates: string[] = [];
    const progress: Progress = { live: true, update: (t) => void updates.push(typeof t === 'string' ? t : t(80)), log: () => undefined, stop: () => undefined };
    const quota = (items: string[], call: number): Outcome =>
      call === 1 ? { type: 'quota', rate: { remaining: 0, reset: 0 } } : { type: 'ok', results: new Map(items.map((i) => [i, 'ok'])), rate: {} };
    const r = await pipeline(['--wait'], { records: records('ann@example.com'), client: client(quota), progress });
    expect(r.error).toBeNull();
    expect(updates.some((u) => /^Quota used up; waiting \d+s for it to reset/.test(u))).toBe(true);
    expect(r.io.err.text).not.toContain('Quota used up');
  });
});
