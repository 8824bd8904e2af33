// Defaults (src/core/defaults.ts): the contract's (--batch-size 100, --concurrency 4, --timeout 30, --retries 3,
// --cache-ttl 7d, the real service's URL), each command's endpoint, request field and output column.
import { describe, expect, it } from 'vitest';
import { COLUMN, DEFAULT_BASE_URL, DEFAULTS, ENDPOINT, FIELD } from '../../src/core/defaults.js';

describe('defaults', () => {
  it("are the contract's", () => {
    expect(DEFAULTS).toEqual({ batchSize: 100, concurrency: 4, timeoutSeconds: 30, retries: 3, cacheTtl: '7d' });
    expect(DEFAULT_BASE_URL).toBe('https://api.valididentities.com');
  });

  it('each command has its endpoint, its JSON field and its output column', () => {
    expect(ENDPOINT).toEqual({ emails: '/emails/validate', domains: '/domains/validate' });
    expect(FIELD).toEqual({ emails: 'emails', domains: 'domains' });
    expect(COLUMN).toEqual({ emails: 'email', domains: 'domain' });
  });
});
