// The item column of an input (src/input/layout/detect.ts): which column holds the items, at its thresholds, among
// several, and the note that says so.
import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { openSource } from '../../../../src/input/read.js';
import { type LayoutOverrides } from '../../../../src/input/layout/detect.js';
import { opened } from './harness.js';

describe('the item column', () => {
  const chosen = async (text: string, overrides = {}) => {
    const s = await openSource({ name: 'c.csv', path: 'c.csv', open: () => Readable.from([Buffer.from(text)]) }, 'emails', overrides, () => undefined);
    return s.layout;
  };
  it('with no header naming a column: the most distinct items win, not the first column', async () => {
    const rows = Array.from({ length: 6 }, (_, i) => `owner${i % 2}@acme.com,Name ${i},c${i}@x.com`).join('\n');
    expect(await chosen(rows + '\n')).toMatchObject({ header: null, column: 2, runnerUp: 0 });
  });
  it('a header naming the column wins over more items elsewhere', async () => {
    const rows = Array.from({ length: 6 }, (_, i) => `c${i}@x.com,${i < 2 ? `p${i}@y.com` : ''}`).join('\n');
    expect(await chosen('Notes,Email\n' + rows + '\n')).toMatchObject({ column: 1, runnerUp: 0 });
  });
  it('a named column empty in the first rows is still the column (LinkedIn hides most addresses)', async () => {
    expect(await chosen('First Name,Email Address,Company\nAnn,,Acme\nBob,,Initech\n')).toMatchObject({ column: 1 });
  });
  it('--column N beyond the table is an input error naming its width', async () => {
    await expect(chosen('Name,Email\nAnn,ann@x.com\n', { column: '5' })).rejects.toMatchObject({
      kind: 'input',
      message: 'c.csv has 2 columns, so it has no column 5; give --column N with N from 1 to 2.',
    });
  });
  it('--column NAME matches the header once normalised too', async () => {
    expect((await chosen('Name,E-Mail-Adresse\nAnn,ann@x.com\n', { column: 'e-mail adresse' })).column).toBe(1);
  });
  it('domains: a column of addresses serves when no column names domains', async () => {
    const s = await openSource({ name: 'c.csv', path: 'c.csv', open: () => Readable.from([Buffer.from('Name,Email\nAnn,ann@globex.com\n')]) }, 'domains', {});
    expect(s.layout).toMatchObject({ header: ['Name', 'Email'], column: 1 });
  });
});

describe('the item column, at its thresholds', () => {
  const layout = async (text: string) => (await openSource({ name: 'c.csv', path: 'c.csv', open: () => Readable.from([Buffer.from(text)]) }, 'emails', {}, () => undefined)).layout;
  it('a small sample whose main column has a typo without its @: one fewer is still close, and the better name wins', async () => {
    const text = 'customer_id,user_email,billing_email\n11,felix.braun.gmail.com,felix@gmail.com\n12,gina@libero.it,gina@libero.it\n13,hans@kpn.com,hans@vos.nl\n';
    expect((await layout(text)).column).toBe(1);
  });
  it('no names: between close columns, the one with more distinct items', async () => {
    const rows = Array.from({ length: 10 }, (_, i) => `${i < 9 ? `a${i}@x.com` : ''},b${i}@y.com`).join('\n');
    expect(await layout(rows + '\n')).toMatchObject({ header: null, column: 1, runnerUp: 0 });
  });
  it('a header wider than most rows (a mostly empty last column, its delimiters dropped): the header gives the width', async () => {
    const rows = ['ann@x.com|', 'bob@x.com|"met at the fair\r\nsaid hi"', 'cy@x.com', 'dee@x.com', 'ed@x.com', 'fay@x.com|vip', 'gil@x.com', 'hal@x.com', 'ivy@x.com'];
    const l = await layout('Email|Notes\r\n' + rows.join('\r\n') + '\r\n');
    expect(l).toMatchObject({ delimiter: '|', header: ['Email', 'Notes'], width: 2, column: 0 });
  });
});

describe('the column choice among several, and its note', () => {
  const open = async (text: string, overrides: LayoutOverrides = {}) => {
    const { s, notes } = await opened(text, overrides);
    return { column: s.layout.column, runnerUp: s.layout.runnerUp, notes };
  };
  /** A CSV of ten rows under `header`: column k holds counts[k] distinct addresses (made by `cell`), then empty cells. */
  const table = (header: string, counts: number[], cell = (k: number, i: number) => `c${k}r${i}@x.com`) =>
    header + '\n' + Array.from({ length: 10 }, (_, i) => counts.map((n, k) => (i < n ? cell(k, i) : '')).join(',')).join('\n') + '\n';

  it('an empty column named exactly for the item competes against one holding a single item (a stream\'s first rows)', async () => {
    expect((await open('Name,Email,Secondary Email\nAnn,,ann2@x.com\n')).column).toBe(1);
    expect((await open('Name,Email,Secondary Email\nAnn,,ann2@x.com\nBob,,bob2@x.com\nCy,,cy2@x.com\n')).column).toBe(2);
    // …not against a column of several item cells (domains: every contact at one company, no website given).
    const text = 'Name,Website,Email\nAnn,,ann@acme.com\nBob,,bob@acme.com\nCid,,cid@acme.com\n';
    expect((await opened(text, {}, 'domains')).s.layout.column).toBe(2);
  });
  it('domains: columns tied on distinct domains (every contact at one company) go to the one with more cells that are items', async () => {
    const text = 'First Name,Last Name,Display Name,Nickname,Primary Email\nAnn,Lee,Ann Lee,,ann@example.com\nBob,Ray,bob@example.com,,bob@example.com\nCy,Ho,Cy,,cy@example.com\n';
    expect((await opened(text, {}, 'domains')).s.layout.column).toBe(4);
  });
  it('the runner-up: of the columns named for the item, the one with the most distinct items, before any column named otherwise', async () => {
    expect(await open(table('Email,Work Email,Notes,Personal Email', [10, 6, 9, 8]))).toEqual({
      column: 0,
      runnerUp: 3,
      notes: ['c.csv: took the column "Email" (10 distinct addresses in the first rows; "Personal Email" has 8); pick another with --column NAME.'],
    });
    expect(await open(table('Email,Notes,Work Email', [10, 9, 6]))).toMatchObject({ column: 0, runnerUp: 2 });
  });

  it('between runners-up of as many distinct items: the better name, then the first', async () => {
    expect(await open(table('Email,Home Email,Work Email', [10, 6, 6]))).toMatchObject({ column: 0, runnerUp: 2 });
    expect(await open(table('Email,Work Email,Personal Email', [10, 6, 6]))).toMatchObject({ column: 0, runnerUp: 1 });
  });

  it('a column not named for the item is no close call: taken over, it is not said', async () => {
    expect(await open(table('Notes,Email', [10, 2]))).toEqual({ column: 1, runnerUp: 0, notes: [] });
  });

  it('a runner-up with exactly half as many distinct items is said', async () => {
    expect(await open(table('Email,Billing Email', [5, 10]))).toEqual({
      column: 1,
      runnerUp: 0,
      notes: ['c.csv: took the column "Billing Email" (10 distinct addresses in the first rows; "Email" has 5); pick another with --column NAME.'],
    });
  });

  it('a column named for a secondary address wins over one of more items named for nothing', async () => {
    expect(await open(table('Notes,Billing Email', [10, 6]))).toEqual({ column: 1, runnerUp: 0, notes: [] });
  });

  it('columns alike in name and distinct items: the one with more valid items, else the first', async () => {
    expect(await open(table('A,B,C', [10, 10, 10]))).toMatchObject({ column: 0, runnerUp: 1 });
    // a typo (no dot in the domain) in the first row of A and C: B has more valid items
    const typos = table('A,B,C', [10, 10, 10], (k, i) => (i === 0 && k !== 1 ? `c${k}r0@x` : `c${k}r${i}@x.com`));
    expect(await open(typos)).toMatchObject({ column: 1, runnerUp: 0 });
  });
});
