// Loopback hosts: where plain http:// is allowed, where the sandbox may listen, and what never goes
// through a proxy (a proxy elsewhere could not reach it).

/** localhost, 127.0.0.0/8 or ::1 (with or without brackets). */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return m !== null && m.slice(1).every((p) => Number(p) <= 255);
}
