// Preloaded into the built idv by the proxy tests that run it as a process (NODE_OPTIONS=--require <this
// file>): no host name is ever resolved for real. Every name idv asks for is appended to IDV_TEST_DNS_LOG,
// one a line; the names listed in IDV_TEST_DNS_HOSTS ("name=127.0.0.1,other=127.0.0.1") answer with that
// address, every other one fails with ENOTFOUND without reaching the system resolver.
'use strict';
const dns = require('node:dns');
const { appendFileSync } = require('node:fs');
const { guardedLookup } = require('./guarded-lookup.cjs');

const log = process.env.IDV_TEST_DNS_LOG;
const hosts = new Map(
  (process.env.IDV_TEST_DNS_HOSTS || '')
    .split(',')
    .filter(Boolean)
    .map((pair) => pair.split('=').map((s) => s.trim().toLowerCase())),
);
const { lookup, lookupPromise } = guardedLookup(hosts, (host) => {
  if (log) appendFileSync(log, host + '\n');
});

function refused(name) {
  if (log) appendFileSync(log, String(name).toLowerCase() + '\n');
  const err = new Error(`DNS query for ${name} blocked by test/dns-guard.cjs`);
  err.code = 'ENOTFOUND';
  return err;
}

dns.lookup = lookup;
dns.promises.lookup = lookupPromise;
for (const fn of ['resolve', 'resolve4', 'resolve6', 'resolveAny', 'resolveCname']) {
  dns[fn] = (name, ...rest) => process.nextTick(rest[rest.length - 1], refused(name));
  dns.promises[fn] = async (name) => {
    throw refused(name);
  };
}
