// Preloaded into the idv under test by test/e2e-proxy.test.ts (NODE_OPTIONS=--require <this file>):
// no host name is ever resolved for real. Every name idv asks for is appended to IDV_TEST_DNS_LOG, one a
// line; the names listed in IDV_TEST_DNS_HOSTS ("name=127.0.0.1,other=127.0.0.1") answer with that
// address, every other one fails with ENOTFOUND without reaching the system resolver.
'use strict';
const dns = require('node:dns');
const { appendFileSync } = require('node:fs');

const log = process.env.IDV_TEST_DNS_LOG;
const hosts = new Map(
  (process.env.IDV_TEST_DNS_HOSTS || '')
    .split(',')
    .filter(Boolean)
    .map((pair) => pair.split('=').map((s) => s.trim().toLowerCase())),
);

function answer(name) {
  const host = String(name).toLowerCase();
  if (log) appendFileSync(log, host + '\n');
  const address = hosts.get(host);
  if (address) return { address, family: address.includes(':') ? 6 : 4 };
  const err = new Error(`getaddrinfo ENOTFOUND ${name} (blocked by test/dns-guard.cjs)`);
  err.code = 'ENOTFOUND';
  err.errno = -3008;
  err.syscall = 'getaddrinfo';
  err.hostname = name;
  throw err;
}

function lookup(name, options, callback) {
  if (typeof options === 'function') {
    callback = options;
    options = {};
  }
  const all = typeof options === 'object' && options !== null && options.all;
  let a;
  try {
    a = answer(name);
  } catch (err) {
    process.nextTick(callback, err);
    return {};
  }
  if (all) process.nextTick(callback, null, [a]);
  else process.nextTick(callback, null, a.address, a.family);
  return {};
}

async function lookupPromise(name, options) {
  const a = answer(name);
  return typeof options === 'object' && options !== null && options.all ? [a] : a;
}

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
