// A name lookup that never reaches a resolver: every name asked for is passed to `log`, the names in `hosts`
// (lower case → address) answer with their address, every other one fails with ENOTFOUND. The proxy tests
// give it to idv in-process (Io.network.lookup), and preload it into the built program (dns-guard.cjs).
'use strict';

function guardedLookup(hosts, log) {
  function answer(name) {
    const host = String(name).toLowerCase();
    log(host);
    const address = hosts.get(host);
    if (address) return { address, family: address.includes(':') ? 6 : 4 };
    const err = new Error(`getaddrinfo ENOTFOUND ${name} (blocked by test/guarded-lookup.cjs)`);
    err.code = 'ENOTFOUND';
    err.errno = -3008;
    err.syscall = 'getaddrinfo';
    err.hostname = name;
    throw err;
  }

  /** dns.lookup's signature: (name, [options,] callback), `options.all` for an array of answers. */
  function lookup(name, options, callback) {
    if (typeof options === 'function') {
      callback = options;
      options = {};
    }
    const all = typeof options === 'object' && options !== null && options.all;
    let found;
    try {
      found = answer(name);
    } catch (err) {
      process.nextTick(callback, err);
      return {};
    }
    if (all) process.nextTick(callback, null, [found]);
    else process.nextTick(callback, null, found.address, found.family);
    return {};
  }

  /** dns.promises.lookup's signature. */
  async function lookupPromise(name, options) {
    const found = answer(name);
    return typeof options === 'object' && options !== null && options.all ? [found] : found;
  }

  return { lookup, lookupPromise };
}

module.exports = { guardedLookup };
