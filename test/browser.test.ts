// What a browser bundle of idv gets (src/browser.ts, package.json's `browser` condition): the same names, so that the
// bundle builds, and one line saying idv is server-side only when it loads.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers.js';

describe('idv in a browser', () => {
  it('loading it fails with one line saying why, and what to do', async () => {
    await expect(import('../src/browser.js')).rejects.toThrow(
      "idv is server-side only: call it from Node (a server, a worker, a script), never from a browser, where the API key would be anyone's.",
    );
  });

  it('it names what the library exports, so that a bundle builds', () => {
    const text = readFileSync(join(ROOT, 'src', 'browser.ts'), 'utf8');
    const names = [...text.matchAll(/^export (?:const|class) (\w+)/gm)].map((m) => m[1]).sort();
    expect(names).toEqual(['IdvError', 'readRecords', 'startSandbox', 'validateDomains', 'validateEmails']);
  });
});
