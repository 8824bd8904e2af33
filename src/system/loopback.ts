// Loopback hosts: where plain http:// is allowed, where the sandbox may listen, and what never goes
// through a proxy (a proxy elsewhere could not reach it).

/** localhost, 127.0.0.0/8 or ::1 (with or without brackets). */
export function isLoopback(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (name === 'localhost' || name === '::1' || name === '0:0:0:0:0:0:0:1') return true;
  const ipv4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(name);
  return ipv4 !== null && ipv4.slice(1).every((octet) => Number(octet) <= 255);
}
