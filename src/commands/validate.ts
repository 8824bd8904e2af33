// `idv emails` / `idv domains`: read → plan (check, dedup, cache) → dispatch → write, streaming.
import { COLUMN, DEFAULT_BASE_URL, ENDPOINT, FIELD, type Kind } from '../defaults.js';
import { IdvError, interruptedError, usageError } from '../errors.js';
import type { Io } from '../io.js';
import { forPerson, warn } from '../io.js';
import { checkerFor } from '../input/check.js';
import { ItemIndex } from '../plan/item-index.js';
import { checkReadable, openSource, sourcesFor, type OpenedSource } from '../input/read.js';
import { resolve } from 'node:path';
import { isLoopback } from '../api/loopback.js';
import { proxySettings } from '../api/transport.js';
import { findKey, keyLooksSendable } from '../key.js';
import { cacheDir, openScope, type CacheScope } from '../cache/store.js';
import { createDispatcher, type Dispatch, type WorkItem } from '../dispatch/dispatch.js';
import { createFormatter, formatForPath, type Format, type OutRecord } from '../output/format.js';
import { fileSink, stdoutSink, type Sink } from '../output/sink.js';
import { loadChalk } from '../output/colors.js';
import { createProgress } from '../output/progress.js';
import { clockTime, formatSummary } from '../output/summary.js';
import { formatDuration } from '../duration.js';
import { ERROR, INVALID, KNOWN_STATUSES, QUOTA_EXCEEDED } from '../statuses.js';

export interface ValidateOptions {
  kind: Kind;
  files: string[];
  format?: Format;
  output?: string;
  column?: string;
  delimiter?: string;
  noHeader: boolean;
  keepColumns: boolean;
  only?: string[];
  exclude?: string[];
  quiet: boolean;
  verbose: boolean;
  dryRun: boolean;
  baseUrl?: string;
  batchSize: number;
  concurrency: number;
  timeoutSeconds: number;
  retries: number;
  wait: boolean;
  maxWaitSeconds?: number;
  cache: boolean;
  cacheTtlSeconds: number;
  sandbox: boolean;
}

/**
 * Map values: an index into `names`; CACHED added when the result came from the cache, and CACHED once
 * more (SEEN) once this run has met that cached item, so that it is counted once.
 */
const PENDING = -1;
const CACHED = 1 << 20;
const SEEN = CACHED * 2;
/** plan(): first met, to be sent. */
const NEW = -2;
/** Records held for in-order output before reading pauses. */
const WINDOW_MAX = 50_000;

interface Pending {
  item: string;
  key: string;
  fields: string[] | null;
  /** Its status index when known at plan time (invalid, cached, a duplicate already answered), else PENDING. */
  v: number;
}

export function resolveBaseUrl(flag: string | undefined, env: Record<string, string | undefined>): string {
  const text = (flag ?? env.IDV_BASE_URL ?? DEFAULT_BASE_URL).trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usageError(`The base URL "${text}" is not a URL; give one like https://api.valididentities.com.`);
  }
  if (url.username || url.password) throw usageError('The base URL must not hold a user name or password; use idv auth login for the key.');
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw usageError(`Refusing plain http:// to ${url.hostname}: the API key would cross the network unencrypted; use https://.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usageError(`The base URL must start with https:// (or http:// to a loopback host), not ${url.protocol}//.`);
  }
  return url.origin + url.pathname.replace(/\/+$/, '');
}

function checkStatusNames(io: Io, flag: string, names: string[] | undefined): void {
  if (!names) return;
  const unknown = names.filter((n) => !KNOWN_STATUSES.includes(n));
  if (unknown.length) {
    warn(io, `idv: warning: ${flag} names ${unknown.map((u) => `"${u}"`).join(', ')}, not a known status (known: ${KNOWN_STATUSES.join(', ')}).`);
  }
}

function chooseFormat(o: ValidateOptions, io: Io): Format {
  if (o.format) return o.format;
  if (o.output) return formatForPath(o.output) ?? 'csv';
  return io.stdoutIsTTY ? 'table' : 'csv';
}

export async function run(o: ValidateOptions, io: Io): Promise<void> {
  const started = Date.now();
  const format = chooseFormat(o, io);
  checkStatusNames(io, '--only', o.only);
  checkStatusNames(io, '--exclude', o.exclude);
  const sources = sourcesFor(o.files, io);
  await checkReadable(o.files, io.cwd);

  // Where results come from: the in-process sandbox, or the service with a key.
  let baseUrl: string;
  let key = '';
  let closeSandbox: (() => Promise<void>) | null = null;
  if (o.sandbox) {
    if (!o.dryRun) {
      const { startSandbox } = await import('../sandbox/server.js');
      const sb = await startSandbox({ quota: 0 });
      baseUrl = sb.url;
      key = sb.key;
      closeSandbox = () => sb.close();
    } else baseUrl = 'sandbox';
  } else {
    baseUrl = resolveBaseUrl(o.baseUrl, io.env);
    if (!o.dryRun) {
      proxySettings(io.env, new URL(baseUrl)); // a malformed proxy variable: a usage error before anything starts
      const found = await findKey(io.env);
      if (!found) {
        throw new IdvError('auth', 'No API key found: set IDV_API_KEY, or store one with idv auth login.');
      }
      io.secrets.add(found.key);
      if (!keyLooksSendable(found.key)) {
        throw new IdvError('auth', `The API key from ${found.source} holds white space or characters other than ASCII, so it cannot be sent; check it, or store it again with idv auth login.`);
      }
      key = found.key;
    }
  }
  try {
    await validate(o, io, { format, sources, baseUrl, key, started });
  } finally {
    await closeSandbox?.();
  }
}

async function validate(
  o: ValidateOptions,
  io: Io,
  ctx: { format: Format; sources: ReturnType<typeof sourcesFor>; baseUrl: string; key: string; started: number },
): Promise<void> {
  const { kind } = o;
  const endpoint = ENDPOINT[kind];
  const check = checkerFor(kind);
  const useCache = o.cache && !o.sandbox;

  // The plan's memory: one map serves as dedup index and cache (key → status index).
  const names: string[] = [];
  const nameIndex = new Map<string, number>();
  const intern = (s: string): number => {
    let i = nameIndex.get(s);
    if (i === undefined) {
      i = names.length;
      names.push(s);
      nameIndex.set(s, i);
    }
    return i;
  };
  const known = new ItemIndex();

  let scope: CacheScope | null = null;
  if (useCache) {
    scope = openScope(cacheDir(io.env), ctx.baseUrl, endpoint, o.cacheTtlSeconds);
    try {
      const report = await scope.load({
        expect: (entries) => known.reserve(entries),
        add: (bytes, start, end, status) => known.setUtf8(bytes, start, end, intern(status) + CACHED),
      });
      if (report.damaged > 0) {
        warn(io, `idv: warning: the cache had ${report.damaged} damaged line${report.damaged === 1 ? '' : 's'} (${scope.path}); ${report.rebuilt ? 'rebuilt it without them' : 'ignored them'}.`);
      }
    } catch (err) {
      warn(io, `idv: warning: cannot use the cache (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); going on without it.`);
      scope = null;
    }
  }

  // Stops: Ctrl-C / SIGTERM from the caller, or a reader that closed standard output.
  const stop = new AbortController();
  const onSignal = () => {
    stop.abort(io.signal.reason);
    releaseWindow();
  };
  /** The reader waits here while the output window is full. */
  let windowWaiter: (() => void) | null = null;
  const releaseWindow = () => {
    const w = windowWaiter;
    windowWaiter = null;
    w?.();
  };
  if (io.signal.aborted) onSignal();
  else io.signal.addEventListener('abort', onSignal, { once: true });

  const first = await openSource(ctx.sources[0]!, kind, overridesOf(o));
  /** Records per status index. */
  const counts: number[] = [];
  const invalidIndex = intern(INVALID);
  let records = 0;
  let unique = 0;
  let invalid = 0;
  let cachedItems = 0;

  /** Plan one valid item: NEW when it must be sent (first met, not cached), else what is known of it. */
  const plan = (key: string): number => {
    const v = known.get(key);
    if (v === undefined) {
      known.set(key, PENDING);
      unique++;
      return NEW;
    }
    if (v >= CACHED && v < SEEN) {
      known.set(key, v + CACHED);
      unique++;
      cachedItems++;
    }
    return v === PENDING ? PENDING : v % CACHED;
  };

  if (o.dryRun) {
    let opened: OpenedSource | null = first;
    for (let s = 0; s < ctx.sources.length; s++) {
      opened ??= await openSource(ctx.sources[s]!, kind, overridesOf(o));
      for await (const batch of opened.records) for (const rec of batch) {
        records++;
        const it = check(rec.value);
        if (!it) {
          invalid++;
          continue;
        }
        plan(it.key);
      }
      opened = null;
    }
    const facts = { records, unique, invalid, cached: cachedItems, quota: unique - cachedItems };
    io.stdout.write(formatDryRun(facts, ctx.format));
    io.signal.removeEventListener('abort', onSignal);
    return;
  }

  const chalkOut = ctx.format === 'table' && io.color && !o.output ? await loadChalk(true) : null;
  const chalkErr = io.colorErr ? await loadChalk(true) : null;
  const formatter = await createFormatter(ctx.format, {
    column: COLUMN[kind],
    keepColumns: o.keepColumns,
    header: first.layout.header,
    delimiter: first.layout.delimiter,
    chalk: chalkOut,
  });
  const sink: Sink = o.output ? fileSink(resolve(io.cwd, o.output)) : stdoutSink(io.stdout);
  const progressOn = io.stderrIsTTY && !o.quiet;
  const progress = await createProgress(io.stderr, progressOn, io.colorErr);
  const only = o.only ? new Set(o.only) : null;
  const exclude = o.exclude ? new Set(o.exclude) : null;

  // The in-order output window.
  const window: Pending[] = [];
  let head = 0;
  /** Output writes, one after another; it never rejects: a failed write is kept in writeFailure and stops the run. */
  let writing: Promise<void> = Promise.resolve();
  let writeFailure: unknown = null;
  const enqueue = (text: string) => {
    writing = writing
      .then(() => (stop.signal.aborted ? undefined : sink.write(text)))
      .catch((err: unknown) => {
        writeFailure ??= err;
        stop.abort('write-failed');
      });
  };
  const written = async () => {
    await writing;
    if (writeFailure) throw writeFailure;
  };
  let done = 0;

  const flush = (): void => {
    if (head >= window.length) return;
    const block: OutRecord[] = [];
    while (head < window.length) {
      const r = window[head]!;
      if (r.v === PENDING) {
        const v = known.get(r.key)!;
        if (v === PENDING) break;
        r.v = v % CACHED;
      }
      const status = names[r.v]!;
      counts[r.v] = (counts[r.v] ?? 0) + 1;
      head++;
      done++;
      if ((only && !only.has(status)) || (exclude && exclude.has(status))) continue;
      block.push({ item: r.item, status, fields: r.fields });
    }
    if (head > 1024 && head * 2 > window.length) {
      window.splice(0, head);
      head = 0;
    }
    if (block.length && !stop.signal.aborted) {
      const text = formatter.records(block);
      if (text) enqueue(text);
    }
    if (windowWaiter && window.length - head < WINDOW_MAX / 2) releaseWindow();
  };

  const progressText = (d: Dispatch | null) =>
    `Validating · ${records.toLocaleString('en-US')} records read · ${done.toLocaleString('en-US')} done` +
    (d ? ` · ${d.stats.sent.toLocaleString('en-US')} sent` : '') +
    (cachedItems ? ` · ${cachedItems.toLocaleString('en-US')} from cache` : '');

  let waitTimer: NodeJS.Timeout | null = null;
  const stopWaitTimer = () => {
    if (waitTimer) clearInterval(waitTimer);
    waitTimer = null;
  };

  let cacheWarned = false;
  const { createClient } = await import('../api/client.js');
  const client = await createClient({
    baseUrl: ctx.baseUrl,
    key: ctx.key,
    timeoutMs: o.timeoutSeconds * 1000,
    connections: o.concurrency,
    env: io.env,
    secrets: io.secrets,
    log: o.verbose ? (line) => progress.log(forPerson(io, `idv: ${line}`)) : undefined,
  });
  const dispatcher = createDispatcher({
    client,
    endpoint,
    field: FIELD[kind],
    batchSize: o.batchSize,
    concurrency: o.concurrency,
    retries: o.retries,
    wait: o.wait,
    maxWaitSeconds: o.maxWaitSeconds,
    signal: stop.signal,
    hurry: () => windowWaiter !== null,
    onResults(results: Array<[WorkItem, string]>) {
      for (const [item, status] of results) known.set(item.key, intern(status));
      if (scope) {
        scope.append(results.map(([i, s]) => [i.key, s])); // the store keeps only what is cacheable
        const err = scope.writeError();
        if (err && !cacheWarned) {
          cacheWarned = true;
          progress.log(forPerson(io, `idv: warning: cannot write the cache (${err.code ?? err.message}: ${scope.path}); this run's results will be paid for again by the next run.`));
        }
      }
      flush();
    },
    onProgress() {
      stopWaitTimer();
      if (progressOn) progress.update(progressText(dispatcher));
    },
    onWait(until) {
      const line = () => `Quota used up; waiting ${formatDuration((until - Date.now()) / 1000)} for it to reset (at ${clockTime(until)}), as --wait asks.`;
      if (io.stderrIsTTY && !o.quiet) {
        stopWaitTimer();
        progress.update(line());
        waitTimer = setInterval(() => (Date.now() >= until ? stopWaitTimer() : progress.update(line())), 1000);
      } else if (!o.quiet) warn(io, `idv: ${line()}`);
    },
  });

  let outcome: IdvError | null = null;
  try {
    enqueue(formatter.begin());
    await written();
    let opened: OpenedSource | null = first;
    reading: for (let s = 0; s < ctx.sources.length; s++) {
      opened ??= await openSource(ctx.sources[s]!, kind, overridesOf(o));
      for await (const batch of opened.records) for (const rec of batch) {
        if (stop.signal.aborted) break reading;
        records++;
        const it = check(rec.value);
        if (!it) {
          invalid++;
          window.push({ item: rec.value.trim(), key: '', fields: rec.fields, v: invalidIndex });
        } else {
          const v = plan(it.key);
          window.push({ item: it.item, key: it.key, fields: rec.fields, v: v === NEW ? PENDING : v });
          if (v === NEW) dispatcher.push({ key: it.key, send: it.send });
        }
        if ((records & 511) === 0) flush();
        if ((records & 1023) === 0) {
          if (progressOn) progress.update(progressText(dispatcher));
          await written();
          if (sink.closed) stop.abort('EPIPE');
        }
        if (!dispatcher.hasRoom()) await dispatcher.room();
        if (window.length - head >= WINDOW_MAX) {
          // Output waits on the records at the window's head: the dispatcher must not hold their batch back
          // for more input, since reading now waits on output.
          await new Promise<void>((r) => {
            windowWaiter = r;
            flush();
            if ((windowWaiter as (() => void) | null) !== null) dispatcher.kick(); // flush() did not free it
            if (stop.signal.aborted) releaseWindow();
          });
        }
      }
      opened = null;
    }
    const stats = await dispatcher.finish();
    flush();
    await written();
    if (sink.closed) stop.abort('EPIPE');
    if (stop.signal.aborted) throw interruptedError(stop.signal.reason);
    await sink.write(formatter.end());
    await sink.commit();
    progress.stop();
    stopWaitTimer();

    if (!o.quiet) {
      const rate = stats.rate;
      const remaining = rate?.remaining !== undefined && stats.rateAt !== undefined ? rate.remaining : undefined;
      io.stderr.write(
        formatSummary(
          {
            records,
            counts: new Map(names.map((n, i) => [n, counts[i] ?? 0])),
            fromCache: cachedItems,
            sentItems: stats.sent,
            requests: stats.requests,
            elapsedMs: Date.now() - ctx.started,
            remaining,
            quota: rate?.quota,
            resetAt: stats.resetAt,
            now: Date.now(),
          },
          chalkErr,
        ),
      );
    }
    const over = counts[nameIndex.get(QUOTA_EXCEEDED) ?? -1] ?? 0;
    const errors = counts[nameIndex.get(ERROR) ?? -1] ?? 0;
    if (over > 0) {
      const when =
        stats.resetAt !== undefined
          ? `It resets in ${formatDuration((stats.resetAt - Date.now()) / 1000)} (at ${clockTime(stats.resetAt)})`
          : 'The service did not say when it resets';
      const again = scope
        ? '; run the same command again then: results already received are cached and not paid for twice.'
        : '.';
      outcome = new IdvError(
        'quota',
        `Quota used up: ${over.toLocaleString('en-US')} record${over === 1 ? '' : 's'} not validated (quota_exceeded). ${when}${again}`,
      );
    } else if (errors > 0) {
      const why = dispatcher.lastFailure();
      outcome = new IdvError(
        'failed',
        `${errors.toLocaleString('en-US')} record${errors === 1 ? '' : 's'} could not be validated (error${why ? `: ${why}` : ''}); run the same command again to retry them.`,
      );
    }
  } catch (err) {
    progress.stop();
    stopWaitTimer();
    await sink.abort();
    if (writeFailure) throw writeFailure;
    if (stop.signal.aborted && stop.signal.reason === 'EPIPE') return; // a reader that went away: end quietly
    if (stop.signal.aborted && !(err instanceof IdvError && err.kind !== 'interrupted')) {
      await dispatcher.finish().catch(() => undefined);
      throw interruptedError(stop.signal.reason);
    }
    throw err;
  } finally {
    io.signal.removeEventListener('abort', onSignal);
    await client.close();
  }
  if (outcome) throw outcome;
}

function overridesOf(o: ValidateOptions) {
  return { column: o.column, delimiter: o.delimiter, noHeader: o.noHeader };
}

export interface DryRunFacts {
  records: number;
  unique: number;
  invalid: number;
  cached: number;
  quota: number;
}

export function formatDryRun(f: DryRunFacts, format: Format): string {
  const entries = Object.entries(f) as Array<[string, number]>;
  switch (format) {
    case 'json':
    case 'ndjson':
      return JSON.stringify(f) + '\n';
    case 'csv':
      return entries.map(([k]) => k).join(',') + '\n' + entries.map(([, v]) => v).join(',') + '\n';
    case 'table':
      return entries.map(([k, v]) => `${k.padEnd(8)} ${v.toLocaleString('en-US')}`).join('\n') + '\n';
  }
}
