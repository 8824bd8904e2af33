// The library's public types (docs/api.md is their contract; public under semver): what validateEmails and
// validateDomains take and give, what readRecords gives, and startSandbox's options. Types only: the package's
// declarations are this file, index.d.ts and errors.d.ts (test/library/api-declarations.test.ts holds them).

/** A status: the service's (`ok`, `alias`, `disposable`, `fake`, `quota_exceeded`, and any it adds later) or idv's own (`invalid`: never sent; `error`: could not be validated). */
export type Status = 'ok' | 'alias' | 'disposable' | 'fake' | 'quota_exceeded' | 'invalid' | 'error' | (string & {});

/** Where a status came from: this run's dispatch (`service`: the service's answer, or quota_exceeded/error when it could not answer), the `cache`, or idv's own `check` (`invalid`). */
export type Source = 'service' | 'cache' | 'check';

/** Items to validate: any iterable or async iterable of strings (an array, a Set, a generator, a stream of lines). */
export type Items = Iterable<string> | AsyncIterable<string>;

/** The result for one item, given in input order. */
export interface ValidationResult {
  /** The item as given, untouched. */
  input: string;
  /** The item as idv reads it (what the CLI writes): trimmed, the address inside a mailbox form (`Ann <ann@x.com>`); for domains, the host as written (the domain part of an address, the host of a URL). */
  item: string;
  /** The item in the form idv sends (for domains: lower case, punycode, no trailing dot; an address as given); null for an invalid item, which is never sent. Duplicates (the same form once an address's domain is lower-cased: `a@EXAMPLE.com` and `a@example.com`) are sent once, as the first of them, and share its answer. */
  canonical: string | null;
  status: Status;
  source: Source;
}

/** What a run came to: counted as the CLI's summary and --report count it. */
export interface ValidationFacts {
  /** Items given. */
  items: number;
  /** Distinct valid items (those from the cache included). */
  unique: number;
  /** Items that cannot be an address or domain: never sent. */
  invalid: number;
  /** Distinct items answered from the cache. */
  fromCache: number;
  /** Results per status. */
  statuses: Record<string, number>;
  /** Items the service answered: at most what the run paid for. */
  sent: number;
  /** Requests made, retries included. */
  requests: number;
  /** Requests that were retries. */
  retries: number;
  /** Items `maxSpend` left unsent (they are quota_exceeded). */
  capped: number;
  /** The service's quota stopped the run: the items it did not cover are quota_exceeded. */
  quotaStopped: boolean;
  /** What the service said of the quota, when it said: validations left, the limit, when it resets. */
  quota: { remaining: number | null; limit: number | null; resetsAt: Date | null } | null;
}

/** Progress, as onProgress is told it: after every block of items read and every answer. */
export interface ValidationProgress {
  /** Items read so far. */
  read: number;
  /** Results given so far. */
  done: number;
  /** Items the service has answered. */
  sent: number;
  requests: number;
  fromCache: number;
  /** Validations left, as the service last said; null until it says. */
  quotaLeft: number | null;
}

/** The result cache: on by default, in idv's cache folder (the CLI's). */
export interface CacheOptions {
  /** Another folder for it. */
  folder?: string;
  /** How long a cached result counts, as the CLI's --cache-ttl takes it: `7d` (the default), `ok=90d,disposable=180d,7d`. */
  ttl?: string;
}

export interface ValidateOptions {
  /** The API key; else IDV_API_KEY, else the key `idv auth login` stored (as the CLI finds it). */
  apiKey?: string;
  /** The service; else IDV_BASE_URL, else https://api.valididentities.com. Plain http:// only to loopback. */
  baseUrl?: string;
  /** Where IDV_API_KEY, IDV_BASE_URL, the proxy variables and idv's folders are read; default process.env, as it is at the call. */
  env?: Record<string, string | undefined>;
  /** Items per request; default 100. */
  batchSize?: number;
  /** Requests in flight at once; default 4. */
  concurrency?: number;
  /** Retries of a request after a network error, a time-out, a 5xx or a malformed answer; default 3. */
  retries?: number;
  /** Time allowed per request, in milliseconds; default 30,000. */
  timeout?: number;
  /** Send at most this many items in this run (cache hits are free); the rest are quota_exceeded, and the run ends with an IdvError of kind `quota`. */
  maxSpend?: number;
  /** When the quota is used up, wait for it to reset and go on (at most `maxWait` milliseconds in all), instead of giving the rest quota_exceeded. */
  wait?: boolean | { maxWait?: number };
  /** `false`: neither read nor write the cache; `true` (default): idv's cache folder; a string: that folder. */
  cache?: boolean | string | CacheOptions;
  /** Stops the run: nothing more is sent; answers in flight are still given (and cached); then the iteration throws an IdvError of kind `interrupted`. */
  signal?: AbortSignal;
  onProgress?: (progress: ValidationProgress) => void;
}

/** What validateEmails and validateDomains give: the results (iterate it once), and the run's facts once it ends. */
export interface Validation extends AsyncIterable<ValidationResult> {
  /** The run's facts, once the iteration has ended; rejects with the IdvError the iteration threw. */
  readonly done: Promise<ValidationFacts>;
}

/** A source of records: a path (or file: URL), bytes, or a stream of bytes (a Readable, or any async iterable of chunks). */
export type RecordSource = string | URL | Uint8Array | AsyncIterable<Uint8Array | string>;

export interface ReadOptions {
  /** What the item column holds; default `emails`. */
  kind?: 'emails' | 'domains';
  /** The item column, by header name or number (from 1), instead of guessing it. */
  column?: string | number;
  /** The delimiter (`,` `;` `|` or tab), instead of guessing it. */
  delimiter?: string;
  /** `false`: the first row is data, not a header. */
  header?: boolean;
  /** `false`: quotes are text, not CSV quoting. */
  quotes?: boolean;
  /** The text's encoding (windows-1251, shift_jis, utf-16le…), instead of detecting it. */
  encoding?: string;
  /** A workbook's sheet, by name or number (from 1); default the first visible one. */
  sheet?: string | number;
  /** Stops the reading: the iteration throws an IdvError of kind `interrupted`. */
  signal?: AbortSignal;
}

/** One record: a data row (or a line of a plain list, or a recipient of a line of several). */
export interface SourceRecord {
  /** The item cell as read (validate it as it is: idv trims it and reads mailbox forms). */
  item: string;
  /** Every cell of its row, as read; a plain list's line is its one cell. */
  cells: string[];
}

/** The layout idv chose for a source, as `idv emails --dry-run` shows it. */
export interface Layout {
  /** The text's encoding (detected or given); for a workbook, `xlsx`. */
  encoding: string;
  /** null: a plain list, one item a line. */
  delimiter: string | null;
  /** The header row, and the line (or row) it is on; null without one. */
  header: { line: number; cells: string[] } | null;
  /** The item column: its number (from 1) and its header's name. */
  column: { number: number; name: string | null };
  /** A workbook's sheet read: its name, number (from 1) and how many the workbook has. */
  sheet: { name: string; number: number; of: number } | null;
}

/** The records of one source, in order (iterate it once), with its layout. */
export interface Records extends AsyncIterable<SourceRecord> {
  readonly layout: Layout;
  /** What idv would say on standard error while reading it, one line each: lines skipped and why, a close column choice, a doubtful encoding. Complete once the iteration has ended. */
  readonly notes: readonly string[];
  /** Let the source go without reading it to its end. */
  close(): Promise<void>;
}

export interface SandboxOptions {
  /** The port; default 0, any free one. */
  port?: number;
  /** The one key it accepts; default a new random one. */
  apiKey?: string;
  /** Validations per window; default 1000; 0: unlimited (and no rate-limit headers). */
  quota?: number;
  /** The quota's window, in milliseconds (whole seconds); default 3,600,000. */
  window?: number;
  /** The wait before each answer, in milliseconds: a fixed one, or a range each answer's wait is drawn from; default 0. */
  latency?: number | { min: number; max: number };
  /** Faults at a rate, as `idv sandbox --faults` takes them: `5xx=10%,timeout=2%,reset=1%,429=1%/30s`; default none. */
  faults?: string;
  /** The seed faults and latencies are drawn from (0 to 2^32 - 1): the same seed replays them; default a random one. */
  seed?: number;
  /** Told one line a request as its exchange ends (time, endpoint, items, status, latency, fault; the key masked). */
  log?: (line: string) => void;
}

/** A running sandbox: the service's emulator on loopback. */
export interface Sandbox {
  /** Its base URL: give it as `baseUrl`. */
  url: string;
  /** The key it accepts: give it as `apiKey`. */
  apiKey: string;
  /** The seed its faults and latencies are drawn from. */
  seed: number;
  /** Stop it, closing every connection. */
  close(): Promise<void>;
}
