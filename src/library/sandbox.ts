// startSandbox: the service's emulator (sandbox/server.ts), as `idv sandbox` runs it, for a program's own tests:
// its quota and window, a key of its own, a latency and faults at a rate, a request log; loopback only.
import { usageError } from '../core/errors.js';
import { startSandbox as start } from '../sandbox/server.js';
import type { Sandbox, SandboxOptions } from './types.js';

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const { window } = options;
  if (window !== undefined && !(Number.isSafeInteger(window) && window >= 1000 && window % 1000 === 0)) {
    throw usageError(`window is in milliseconds, whole seconds of at least 1000; not ${String(window)}.`);
  }
  let sandbox;
  try {
    const { port, apiKey: key, quota, latency, faults, seed, log } = options;
    sandbox = await start({ port, key, quota, window: window === undefined ? undefined : window / 1000, latency, faults, seed, log });
  } catch (err) {
    if (err instanceof RangeError || (err instanceof Error && err.message.startsWith('sandbox: '))) throw usageError(err.message.replace(/^sandbox: /, 'startSandbox: '));
    throw err;
  }
  return { url: sandbox.url, apiKey: sandbox.key, seed: sandbox.seed, close: () => sandbox.close() };
}
