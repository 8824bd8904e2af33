// Shared by the end-to-end files that run idv in this process: a home with a sandbox per test, proxies that
// count or delay, and emails.txt's expected output.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sandbox, type Home, withHome } from '../helpers.js';

export type Rec = { email?: string; domain?: string; status: string };

/** Run fn with a fresh HOME and a sandbox (and the env pointing idv at it), always closing both. */
export async function withSandbox<T>(
  opts: Parameters<typeof sandbox>[0],
  fn: (s: Awaited<ReturnType<typeof sandbox>> & { home: Home }) => Promise<T>,
): Promise<T> {
  return withHome(async (home) => {
    const s = await sandbox(opts, home);
    try {
      return await fn({ ...s, home });
    } finally {
      await s.sb.close();
    }
  });
}

export function counts(records: Rec[]): Record<string, number> {
  const c: Record<string, number> = {};
  for (const r of records) c[r.status] = (c[r.status] ?? 0) + 1;
  return c;
}

export async function tmpFile(home: Home, name: string, content: string | Buffer): Promise<string> {
  const p = join(home.dir, name);
  await writeFile(p, content);
  return p;
}

/** A TCP listener that only counts connections (used as a proxy that must never be reached). */
export async function connectionCounter(): Promise<{ url: string; count: () => number; close: () => Promise<void> }> {
  let n = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    n++;
    sockets.add(s);
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    count: () => n,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** A loopback proxy to `target` that delays the n-th request (from 0) by delay(n) ms; records completion order. */
export async function delayingProxy(
  target: string,
  delay: (n: number) => number,
): Promise<{ url: string; completed: number[]; close: () => Promise<void> }> {
  const completed: number[] = [];
  let next = 0;
  const server = http.createServer((req, res) => {
    const n = next++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const fwd = http.request(
        target + (req.url ?? '/'),
        { method: req.method, headers: { ...req.headers, host: new URL(target).host } },
        (up) => {
          const body: Buffer[] = [];
          up.on('data', (c: Buffer) => body.push(c));
          up.on('end', () => {
            setTimeout(() => {
              completed.push(n);
              res.writeHead(up.statusCode ?? 502, up.headers);
              res.end(Buffer.concat(body));
            }, delay(n));
          });
        },
      );
      fwd.on('error', () => res.destroy());
      fwd.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    completed,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export const EMAILS_TXT_CSV =
  'email,status\n' +
  'olivia.bennett@gmail.com,ok\n' +
  'marcus.chen@acme-corp.com,ok\n' +
  'priya.sharma@outlook.com,ok\n' +
  'sofia.rossi@northwind.io,ok\n' +
  'daniel.okafor+newsletter@gmail.com,alias\n' +
  'throwaway4821@mailinator.com,disposable\n' +
  'kev.r@guerrillamail.com,disposable\n' +
  'john.doe@fake.com,fake\n' +
  'qa-user@shop.test,fake\n' +
  'noah.garcia.gmail.com,invalid\n' +
  'liam.walsh@yahoo.com,ok\n' +
  'priya.sharma@Outlook.COM,ok\n' +
  'sofia.rossi@northwind.io,ok\n' +
  'hannah.w+receipts@yahoo.com,alias\n' +
  '@outlook.com,invalid\n' +
  'tom.baker@localhost,invalid\n' +
  'test123@yopmail.com,disposable\n' +
  'Marcus.Chen@acme-corp.com,ok\n' +
  'ethan.brooks@nowhere.org,fake\n';

export const EMAILS_TXT_SENT = [
  'olivia.bennett@gmail.com',
  'marcus.chen@acme-corp.com',
  'priya.sharma@outlook.com',
  'sofia.rossi@northwind.io',
  'daniel.okafor+newsletter@gmail.com',
  'throwaway4821@mailinator.com',
  'kev.r@guerrillamail.com',
  'john.doe@fake.com',
  'qa-user@shop.test',
  'liam.walsh@yahoo.com',
  'hannah.w+receipts@yahoo.com',
  'test123@yopmail.com',
  'Marcus.Chen@acme-corp.com',
  'ethan.brooks@nowhere.org',
];
