// `idv help TOPIC` (src/commands/help-topics.ts): what is true of many commands said once: each topic found in any
// case, every status described, `idv help COMMAND` a command's help, a slip answered with what was meant, and the
// lines that point a command's help at the topics.
import { describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { examplesTitle, helpCommand, topicList, topicsLine, TOPICS } from '../../src/commands/help-topics.js';
import { KNOWN_STATUSES } from '../../src/core/statuses.js';
import { fakeIo } from '../fake-io.js';

/** `idv help …words` in a small program of emails and auth login: what it printed, or the usage error. */
function help(...words: string[]) {
  const io = fakeIo({ columns: 80 });
  const program = new Command('idv').exitOverride().configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: () => undefined });
  program.command('emails').description('validate email addresses').option('--only <statuses>', 'only these');
  program.command('auth').command('login').description('store the API key');
  program.addCommand(helpCommand(io, program));
  try {
    program.parse(['help', ...words], { from: 'user' });
  } catch (err) {
    const e = err as { code?: string; kind?: string; message: string };
    if (e.code !== 'commander.helpDisplayed' && e.code !== 'commander.help') return { out: io.out.text, error: e };
  }
  return { out: io.out.text, error: null };
}

describe('the topics', () => {
  it('each has a one-line about and something to say', () => {
    for (const [name, topic] of Object.entries(TOPICS)) {
      expect(topic.about, name).not.toMatch(/\n/);
      expect(topic.about.length, name).toBeLessThanOrEqual(60);
      expect(topic.blocks.length, name).toBeGreaterThan(0);
    }
  });

  it('statuses: every status idv knows, each with what it means', () => {
    const list = TOPICS.statuses!.blocks.find((b) => 'list' in b) as { items: Array<[string, string]> };
    expect(list.items.map(([s]) => s)).toEqual([...KNOWN_STATUSES]);
    for (const [status, about] of list.items) expect(about, status).not.toBe('');
  });

  it('the list of topics, in order, each with its about; the lines that point at them', () => {
    expect(topicList()).toEqual({ list: 'Help topics (idv help TOPIC)', items: Object.entries(TOPICS).map(([n, t]) => [n, t.about]) });
    expect(topicsLine('input', 'output')).toEqual({ prose: 'More in idv help TOPIC: input, output.' });
    expect(examplesTitle('input', 'cron')).toBe('Examples (more: idv help input, cron):');
  });
});

describe('idv help', () => {
  it('a topic, in any case: its text on standard output', () => {
    const r = help('STATUSES');
    expect(r.error).toBeNull();
    expect(r.out).toContain('quota_exceeded');
    expect(r.out).toContain('a throw-away mailbox (mailinator.com…)');
    expect(r.out.split('\n').every((l) => l.length <= 80)).toBe(true);
  });

  it("a command, one word or two: that command's help", () => {
    expect(help('emails').out).toMatch(/^Usage: idv emails \[options\]/);
    expect(help('emails').out).toContain('--only <statuses>');
    expect(help('auth', 'login').out).toMatch(/^Usage: idv auth login/);
  });

  it('a slip: one usage line with what was meant and the topics; nothing near: the topics alone', () => {
    const names = Object.keys(TOPICS).join(', ');
    expect(help('statuss').error).toMatchObject({ kind: 'usage', message: `idv help statuss: no such topic or command; did you mean idv help statuses? (topics: ${names})` });
    expect(help('emals').error).toMatchObject({ message: `idv help emals: no such topic or command; did you mean idv help emails? (topics: ${names})` });
    expect(help('zzzzzz').error).toMatchObject({ message: `idv help zzzzzz: no such topic or command (topics: ${names})` });
  });
});
