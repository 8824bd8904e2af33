// The sandbox's request log: one line a request as its exchange ends, in the words of idv's --verbose —
// `2026-03-14T09:58:12.332Z POST /emails/validate 100 items → 503 in 212 ms (fault: 503); key ****a1b2` — the key
// masked, and every character a client sent that could move the cursor shown escaped.
import { bearerToken, type Fault } from './answer.js';
import type { Incoming } from './http-server.js';
import type { Watch } from './service.js';
import { faultName } from './faults.js';
import { maskKey } from '../system/api-key.js';
import { terminalSafe } from '../system/terminal-text.js';

/** A watcher (service.ts) that writes each request's line to `log` when its exchange ends. */
export function requestLog(log: (line: string) => void, now: () => number = Date.now): (incoming: Incoming) => Watch {
  return (incoming) => {
    const started = now();
    let items: string[] | null = null;
    let fault: Fault | undefined;
    void incoming.ended.then((status) => log(requestLine({ incoming, started, ended: now(), status, items, fault })));
    return {
      read: (read) => (items = read),
      answering: (f) => (fault = f),
    };
  };
}

interface Exchange {
  incoming: Incoming;
  started: number;
  ended: number;
  /** The status sent; 0 when none was. */
  status: number;
  items: string[] | null;
  fault: Fault | undefined;
}

export function requestLine(e: Exchange): string {
  const { incoming } = e;
  const count = e.items === null ? '' : ` ${e.items.length} item${e.items.length === 1 ? '' : 's'}`;
  const what = e.status !== 0 ? String(e.status) : e.fault?.kind === 'reset' ? 'connection reset' : e.fault?.kind === 'hang' ? 'no answer (the client gave up)' : 'the client went away';
  const fault = e.fault && e.fault.kind !== 'none' ? ` (fault: ${faultName(e.fault)})` : '';
  const token = bearerToken(incoming.authorization);
  const key = token === undefined ? 'no key' : `key ${maskKey(token)}`;
  // Stamped when it ends, as it is written: the log's times only go forward; the latency says when it came.
  const line = `${new Date(e.ended).toISOString()} ${incoming.method} ${incoming.path}${count} → ${what} in ${e.ended - e.started} ms${fault}; ${key}`;
  return terminalSafe(line);
}
