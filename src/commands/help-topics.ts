// `idv help <topic>`: what is true of many commands, said once (the environment, files, exit codes, how input is
// read, the output formats, statuses, durations, nightly jobs), instead of in every command's --help. The man
// page (tools/man-page.ts) prints the same blocks. `idv help <command>` is that command's --help.
import { Argument, Command } from 'commander';
import { ENVIRONMENT, EXIT_CODES, FILES, helpWidth, layout, type Block } from './help-text.js';
import { usageError } from '../core/errors.js';
import type { Io } from '../system/io.js';
import { KNOWN_STATUSES } from '../core/statuses.js';
import { closest, NEW_STATUS } from './parsers.js';

export interface Topic {
  /** One line, for the list of topics. */
  about: string;
  blocks: Block[];
}

export const TOPICS: Readonly<Record<string, Topic>> = {
  input: {
    about: 'what is read: files, pipes, CSV, workbooks, code pages',
    blocks: [
      {
        prose:
          'Input: FILEs (- for standard input, read when piped and neither FILE nor --item is given), or items given with -i/--item. Plain lists (one item a line; a line of several recipients, as a mail client copies them, is one record each) or CSV/TSV exports, whose column is found by its header (email, e-mail, メールアドレス, 电子邮件, Электронная почта… in forty-odd languages; for domains: domain, website, url, host…) and its contents; --column NAME|N, --delimiter and --no-header override the guesses. A row that holds text that could be an item is a record: only a header, notes above it and a report\'s footer are skipped, each said on stderr. Mailbox forms (Jane <jane@x.com>, mailto:…) are read as the address inside; idv domains reads a URL\'s host and an address\'s domain.',
      },
      {
        prose:
          'Text that is not UTF-8 is read in its detected code page (--encoding NAME overrides). Excel workbooks (.xlsx, by content: the first visible sheet, or --sheet NAME|N) and gzip-compressed files are read like CSV, whatever their names. Standard input from a pipe is answered as it comes: once it pauses, the layout is decided on what has arrived, and each result is written as soon as it is known. An item given as a FILE that does not exist is refused with the --item to use (exit 2); an input with no records draws a warning (exit 0). --dry-run shows the layout read.',
      },
      {
        prose:
          'Limits, each refused in one line naming the flag that raises it (exit 2): a file may unpack to 1 GiB before its first record, and to 100 times its compressed size (--max-unpacked SIZE: 4GiB, 500MB; given, the one limit); a row, and so a cell, holds at most 16 MiB of text (--max-row-size SIZE).',
      },
    ],
  },
  output: {
    about: 'what is written: -o, --split, the table, progress, summary',
    blocks: [
      {
        prose:
          'Output: one record per input record, in input order: a table on a terminal, as wide as the terminal (the item, status and suggestion always shown; other columns cut or left out first, marked …); CSV in a pipe; with -o, the format its extension names (.csv, .json, .ndjson, .xlsx), written atomically. --keep-columns keeps every input column and adds status; --split DIR writes one file per status; --report FILE an account of the run (JSON). csv, json and xlsx hold every column in full. For Excel: --bom begins CSV with the UTF-8 byte-order mark Excel needs to read it as UTF-8 (RenÃ©e without it); -o and --split CSV files keep the mark when the input had one, standard output gets it only with --bom, --no-bom never writes it.',
      },
      {
        prose:
          'While it runs, on a terminal: one line on standard error, no wider than the terminal: records done of the total (counted ahead for a file read in a moment, else estimated with ~ from the bytes read), percentage, rate and time left (from the items sent), errors, quota left, answers from the cache. With --verbose where standard error is no terminal, the same as a log line every 5 seconds. At the end, the summary and a line naming what -o and --split wrote. -q shows none of these.',
      },
    ],
  },
  formats: {
    about: 'table, csv, json, ndjson, xlsx (-f, any case)',
    blocks: [
      {
        list: 'Formats',
        items: [
          ['table', 'aligned columns for a person, status coloured (the default on a terminal)'],
          ['csv', 'a header, then RFC 4180 rows (the default in a pipe; -o .csv)'],
          ['json', 'one array of objects (-o .json)'],
          ['ndjson', 'one object a line, written as results come (-o .ndjson or .jsonl)'],
          ['xlsx', 'an Excel workbook (-o .xlsx); never to a terminal'],
        ],
      },
      { prose: '-f chooses (any case: -f JSON); without it: table on a terminal, csv in a pipe, and with -o the format its extension names.' },
    ],
  },
  statuses: {
    about: 'what each status means; --only and --exclude',
    blocks: [
      { list: 'Statuses', items: STATUS_ITEMS() },
      {
        prose: `--only and --exclude take statuses, in any case (--only ok,alias). A name that is no status is refused before anything is sent; words people use are answered with the statuses that mean them (valid, good, deliverable: ok,alias; bad, undeliverable: disposable,fake,invalid; risky: disposable,fake; temporary: disposable). A status the service may add, which idv does not know yet, is written ${NEW_STATUS}NAME (--only ok,${NEW_STATUS}verified).`,
      },
    ],
  },
  durations: {
    about: 'how durations are written: 90s, 30m, 2h, 7d',
    blocks: [
      {
        prose:
          'A duration is a number and its unit, added up as you like: 250ms, 30s, 90m, 2h, 7d, 1w, 1h30m (sec, min, hours, days… spelt out too). A number alone is refused (--cache-ttl 7: days or seconds?), but 0, and where it has always meant seconds: --timeout 30, idv sandbox --window 3600.',
      },
    ],
  },
  cron: {
    about: 'a nightly job: a cap on spending, a report, exit 4',
    blocks: [
      {
        title:
          'A nightly job: at most 1,000 items paid for, a receipt for monitoring, per-status files to import (ok.csv + alias.csv back into the mailing tool, the rest as a suppression list); exit 4 means "capped or quota used up, run again later", and the next run sends only what is not validated yet:',
        examples: [
          { command: 'idv emails /data/export.csv --keep-columns --max-spend 1000 --report /data/run.json --split /data/split -o /data/checked.csv -q || test $? -eq 4' },
        ],
      },
      { prose: 'Results are cached (--cache-ttl, default 7d), so a rerun pays only for what is new or expired; --wait (with --max-wait 2h) waits for the quota to reset instead of stopping.' },
    ],
  },
  environment: { about: 'the environment variables idv reads', blocks: [{ list: 'Environment', items: ENVIRONMENT }] },
  files: { about: "idv's config file and cache", blocks: [{ list: 'Files', items: FILES }] },
  'exit-codes': {
    about: 'what each exit code means',
    blocks: [{ list: 'Exit codes', items: EXIT_CODES }, { prose: 'When several apply, the first of 3, 4, 1 wins.' }],
  },
};

function STATUS_ITEMS(): Array<[string, string]> {
  const about: Record<string, string> = {
    ok: 'a real address (or domain) that takes mail',
    alias: 'an alias of another mailbox (jane+news@…); takes mail',
    disposable: 'a throw-away mailbox (mailinator.com…)',
    fake: 'a domain or mailbox that does not exist',
    quota_exceeded: 'not validated: the quota or --max-spend ran out; a rerun goes on',
    invalid: 'cannot be an address (never sent, costs nothing)',
    error: 'could not be validated: the service or network kept failing',
  };
  return KNOWN_STATUSES.map((s) => [s, about[s] ?? '']);
}

/** The line after a command's examples: the topics that say the rest. */
export function topicsLine(...names: string[]): Block {
  return { prose: `More in idv help TOPIC: ${names.join(', ')}.` };
}

/** The title of a command's examples, naming the topics that say the rest (one line less than a line of its own). */
export function examplesTitle(...names: string[]): string {
  return `Examples (more: idv help ${names.join(', ')}):`;
}

/** The topics, one a line, for `idv --help` and `idv help`. */
export function topicList(): Block {
  return { list: 'Help topics (idv help TOPIC)', items: Object.entries(TOPICS).map(([name, t]) => [name, t.about] as const) };
}

/** `idv help [topic | command…]`: `program` is the tree it is added to, last (its commands are known). */
export function helpCommand(io: Io, program: Command): Command {
  const names = Object.keys(TOPICS);
  const commands = program.commands.map((c) => c.name());
  const argument = new Argument('[topic...]', `a topic (${names.join(', ')}), or a command`);
  argument.argChoices = [...names, ...commands]; // for the completion scripts; checked here, not by commander
  return new Command('help')
    .description("show a help topic, or a command's help (idv help emails)")
    .addArgument(argument)
    .action((words: string[]) => {
      if (words.length === 0) return program.outputHelp();
      const first = words[0]!.toLowerCase();
      if (words.length === 1 && Object.hasOwn(TOPICS, first)) {
        io.stdout.write(layout(TOPICS[first]!.blocks, helpWidth(io), io.platform) + '\n');
        return;
      }
      const command = findCommand(program, words);
      if (command) return command.outputHelp();
      const meant = closest(first, [...names, ...commands]);
      throw usageError(`idv help ${words.join(' ')}: no such topic or command${meant ? `; did you mean idv help ${meant}?` : ''} (topics: ${names.join(', ')})`);
    });
}

/** The command the words name (`auth login`), or null. */
function findCommand(program: Command, words: string[]): Command | null {
  let command: Command | undefined = program;
  for (const word of words) command = command?.commands.find((c) => c.name() === word.toLowerCase());
  return command && command !== program ? command : null;
}
