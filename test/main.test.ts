// runCli's secrets: a key is masked from the first message on, but only a key idv would send (a shorter one
// never leaves idv, and masking it would rewrite idv's own words).
import { describe, expect, it } from 'vitest';
import { run } from './fake-io.js';

describe('the key in use is masked, idv\'s words are not', () => {
  it('IDV_API_KEY=short: the message says "too short", and names no key', async () => {
    const r = await run(['emails', '-'], { env: { IDV_API_KEY: 'short', IDV_BASE_URL: 'http://127.0.0.1:9' }, input: 'a@example.com\n' });
    expect(r.stderr).toBe(
      'idv: The API key from the IDV_API_KEY environment variable is too short to be one (5 characters; keys have at least 8); export the right key in IDV_API_KEY, or unset it and store the right one with idv auth login (a stored key is not used while IDV_API_KEY is set).\n',
    );
    expect(r.exitCode).toBe(3);
  });

  it('a key long enough to be sent is masked where it appears (here, given by mistake as a flag value)', async () => {
    const r = await run(['emails', '-', '--base-url', 'sk_live_abcdefgh'], { env: { IDV_API_KEY: 'sk_live_abcdefgh' } });
    expect(r.stderr).toBe('idv: The base URL "****" is not a URL; give one like https://api.valididentities.com.\n');
  });
});
