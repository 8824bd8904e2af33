// --suggest for a provider's name typed without its ending: `x@gmail` gets gmail.com as `x@gmailcom` does;
// `@hotmail`, `@yahoo` likewise; one edit of a long enough name (`gmial`) too; a dotless word that is no
// provider's name gets nothing.
import { describe, expect, it } from 'vitest';
import { suggest, suggestDomain } from '../../src/output/suggest.js';
import { run } from '../fake-io.js';

describe('a provider\'s name without its ending', () => {
  it.each([
    ['gmail', 'gmail.com'],
    ['hotmail', 'hotmail.com'],
    ['yahoo', 'yahoo.com'],
    ['outlook', 'outlook.com'],
    ['icloud', 'icloud.com'],
    ['aol', 'aol.com'],
    ['GMAIL', 'gmail.com'],
    ['gmail.', 'gmail.com'],
    ['web', 'web.de'],
    ['gmial', 'gmail.com'],
    ['hotmial', 'hotmail.com'],
    ['yahooo', 'yahoo.com'],
  ])('%s → %s', (typed, meant) => {
    expect(suggestDomain(typed)).toBe(meant);
  });

  it.each(['example', 'localhost', 'acme', 'mx', 'gm', 'intranet'])('%s: none', (typed) => {
    expect(suggestDomain(typed)).toBeNull();
  });

  it('an address keeps its local part', () => {
    expect(suggest('emails', 'jane.doe@gmail')).toBe('jane.doe@gmail.com');
    expect(suggest('emails', 'x@hotmail')).toBe('x@hotmail.com');
    expect(suggest('domains', 'yahoo')).toBe('yahoo.com');
  });
});

describe('idv emails --suggest', () => {
  it('x@gmail gets x@gmail.com, as x@gmailcom does; nothing is sent for either (no dot: invalid)', async () => {
    const r = await run(['emails', '-', '--sandbox', '--suggest', '-q'], { input: 'email\nx@gmail\ny@hotmail\nz@yahoo\nw@gmailcom\nu@example\n' });
    expect(r.stdout).toBe(
      'email,status,suggestion\nx@gmail,invalid,x@gmail.com\ny@hotmail,invalid,y@hotmail.com\nz@yahoo,invalid,z@yahoo.com\nw@gmailcom,invalid,w@gmail.com\nu@example,invalid,\n',
    );
    expect(r.exitCode).toBe(0);
  });
});
