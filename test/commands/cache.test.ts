// `idv cache stats | clear`, as a user runs them: clear asks in a terminal (--yes skips the question, and is
// required when standard input is not a terminal) and says how many results it removed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readdir } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { cacheDir, openScope } from '../../src/cache/store.js';
import { run } from '../fake-io.js';
import { makeHome, type Home } from '../helpers.js';

let home: Home;
let dir: string;
beforeEach(async () => {
  home = await makeHome();
  dir = cacheDir(home.env);
  const scope = openScope(dir, 'https://api.x', '/emails/validate', 86400);
  (await scope.load()).results.close();
  scope.append([
    ['a@x.com', 'ok'],
    ['b@x.com', 'fake'],
    ['c@x.com', 'alias'],
  ]);
});
afterEach(async () => {
  await home.cleanup();
});

const logs = async () => (await readdir(dir)).filter((n) => n.endsWith('.log'));

describe('idv cache clear', () => {
  it('-q removes without a word', async () => {
    const quiet = await run(['cache', 'clear', '--yes', '-q', '--no-color'], { env: home.env });
    expect(quiet).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(await logs()).toEqual([]);
  });

  it('Ctrl-C at the question: the message starts a line of its own', async () => {
    const stop = new AbortController();
    const input = new PassThrough();
    const r = run(['cache', 'clear'], { env: home.env, stdinIsTTY: true, input, signal: stop.signal, onStderr: (t) => t.endsWith('[y/N] ') && stop.abort('SIGINT') });
    const { exitCode, stderr } = await r;
    expect(exitCode).toBe(130);
    expect(stderr.split('\n')[0]).toBe(`Remove all 3 cached results in ${dir}? [y/N] `);
    expect(stderr.split('\n')[1]).toMatch(/^idv: Interrupted/);
  });

  it('in a terminal, asks first; "y" removes every result and says how many', async () => {
    const r = await run(['cache', 'clear'], { env: home.env, stdinIsTTY: true, input: 'y\n' });
    expect(r).toEqual({ exitCode: 0, stdout: '', stderr: `Remove all 3 cached results in ${dir}? [y/N] Removed 3 cached results from ${dir}.\n` });
    expect(await logs()).toEqual([]);
  });

  it('in a terminal, anything but yes (or the end of input) keeps the cache', async () => {
    for (const input of ['n\n', '\n', 'yep\n', '']) {
      const r = await run(['cache', 'clear'], { env: home.env, stdinIsTTY: true, input });
      expect(r).toEqual({ exitCode: 0, stdout: '', stderr: `Remove all 3 cached results in ${dir}? [y/N] Nothing removed.\n` });
      expect(await logs()).toHaveLength(1);
    }
  });

  it('Ctrl-C at the question ends it with exit 130 and removes nothing', async () => {
    const stop = new AbortController();
    const input = new PassThrough(); // a terminal nobody types into
    const running = run(['cache', 'clear'], { env: home.env, stdinIsTTY: true, input, signal: stop.signal });
    await new Promise((r) => setTimeout(r, 50));
    stop.abort('SIGINT');
    const r = await running;
    expect(r.exitCode).toBe(130);
    expect(await logs()).toHaveLength(1);
  });

  it('--yes removes without asking, in a pipe or a terminal', async () => {
    const r = await run(['cache', 'clear', '--yes'], { env: home.env });
    expect(r).toEqual({ exitCode: 0, stdout: '', stderr: `Removed 3 cached results from ${dir}.\n` });
    const again = await run(['cache', 'clear', '-y'], { env: home.env, stdinIsTTY: true });
    expect(again).toEqual({ exitCode: 0, stdout: '', stderr: `The cache in ${dir} holds no results; nothing to remove.\n` });
  });

  it('standard input not a terminal and no --yes: a usage error (exit 2), nothing removed', async () => {
    const r = await run(['cache', 'clear'], { env: home.env, input: 'y\n' });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('idv: idv cache clear asks before it removes anything, and standard input is not a terminal; add --yes to clear the cache without asking.\n');
    expect(await logs()).toHaveLength(1);
  });
});

describe('idv cache stats', () => {
  it('shows path, entries, size and the oldest entry; --format json as one object', async () => {
    const r = await run(['cache', 'stats'], { env: home.env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^path     ${dir}\nentries  3\nsize     \\d+ B\noldest   \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\n  https://api.x /emails/validate: 3 entries\n$`));
    const json = JSON.parse((await run(['cache', 'stats', '--format', 'json'], { env: home.env })).stdout);
    expect(json).toMatchObject({ path: dir, entries: 3, scopes: [{ baseUrl: 'https://api.x', endpoint: '/emails/validate', entries: 3 }] });
  });

  it('takes the grammar of every command: -f in any case, -f table, --no-color', async () => {
    const json = await run(['cache', 'stats', '-f', 'JSON', '--no-color'], { env: home.env });
    expect(JSON.parse(json.stdout)).toMatchObject({ path: dir, entries: 3 });
    expect((await run(['cache', 'stats', '-f', 'table'], { env: home.env })).stdout).toBe((await run(['cache', 'stats'], { env: home.env })).stdout);
    const slip = await run(['cache', 'stats', '-f', 'jsno'], { env: home.env });
    expect(slip.stderr).toBe('idv: --format "jsno" is no format; did you mean json? (table, json)\n');
    expect(slip.exitCode).toBe(2);
  });
});
