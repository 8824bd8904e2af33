// startSandbox: the service's emulator (sandbox/server.ts), as `idv sandbox` runs it, for a program's own tests:
// its quota and window, a key of its own, loopback only.
import { usageError } from '../errors.js';
import { startSandbox as start } from '../sandbox/server.js';
import type { Sandbox, SandboxOptions } from './types.js';

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const { window } = options;
  if (window !== undefined && !(Number.isSafeInteger(window) && window >= 1000 && window % 1000 === 0)) {
    throw usageError(`window is in milliseconds, whole seconds of at least 1000; not ${String(window)}.`);
  }
  let sandbox;
  try {
    sandbox = await start({ port: options.port, key: options.apiKey, quota: options.quota, window: window === undefined ? undefined : window / 1000 });
  } catch (err) {
    if (err instanceof RangeError || (err instanceof Error && err.message.startsWith('sandbox: '))) throw usageError(err.message.replace(/^sandbox: /, 'startSandbox: '));
    throw err;
  }
  return { url: sandbox.url, apiKey: sandbox.key, close: () => sandbox.close() };
}
