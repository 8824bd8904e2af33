// idv's version (src/core/version.ts): package.json's, as `idv --version` and the report say it.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { version } from '../../src/core/version.js';
import { ROOT } from '../helpers.js';

describe('version', () => {
  it("is package.json's version, the same on every call", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(version()).toBe(pkg.version);
    expect(version()).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
    expect(version()).toBe(version());
  });
});
