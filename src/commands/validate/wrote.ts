// The lines that end a run's account on standard error: what -o and --split wrote, and where; and what an
// input without records draws. Pure: counts in, one line each out (fitted to the terminal by the caller).

export interface Written {
  /** -o FILE as given; none for standard output (`-`, /dev/stdout…), which shows what it holds. */
  output?: string;
  only?: readonly string[];
  exclude?: readonly string[];
  /** --split DIR as given, and its files' extension. */
  split?: string;
  splitExtension: string;
  /** Every status the command can give (each has its --split file), in their order. */
  statuses: readonly string[];
  /** Records per status. */
  counts: ReadonlyMap<string, number>;
}

const n = (x: number) => x.toLocaleString('en-US');
const plural = (x: number, word: string) => `${n(x)} ${word}${x === 1 ? '' : 's'}`;

/** `Wrote 1,234 records to clean.csv.` and `Wrote 7 files to split/ (ok.csv 900, …).`, for what was given. */
export function wroteLines(w: Written): string[] {
  const lines: string[] = [];
  if (w.output !== undefined) lines.push(wroteOutput(w, w.output));
  if (w.split !== undefined) lines.push(wroteSplit(w, w.split));
  return lines;
}

function wroteOutput(w: Written, output: string): string {
  let written = 0;
  let all = 0;
  for (const [status, count] of w.counts) {
    all += count;
    if ((!w.only || w.only.includes(status)) && !w.exclude?.includes(status)) written += count;
  }
  const flags = [w.only && '--only', w.exclude && '--exclude'].filter(Boolean).join(' and ');
  const left = all - written;
  return `Wrote ${plural(written, 'record')} to ${output}${left > 0 ? `; ${flags} left out ${n(left)}` : ''}.`;
}

function wroteSplit(w: Written, dir: string): string {
  const others = [...w.counts.keys()].filter((s) => !w.statuses.includes(s)).sort();
  const files = [...w.statuses, ...others];
  const full = files.filter((s) => (w.counts.get(s) ?? 0) > 0);
  const empty = files.length - full.length;
  const parts = full.map((s) => `${s}${w.splitExtension} ${n(w.counts.get(s)!)}`);
  if (empty > 0) parts.push(full.length ? `${empty} without records` : 'all without records');
  return `Wrote ${plural(files.length, 'file')} to ${dir.endsWith('/') ? dir : dir + '/'} (${parts.join(', ')}).`;
}

/** An input that gave no record: said, and when no input gave any, that there is nothing to validate. */
export function emptyInputLine(name: string, nothingAtAll: boolean): string {
  return `idv: warning: ${name} holds no records${nothingAtAll ? '; nothing to validate' : ''}.`;
}
