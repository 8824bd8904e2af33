// Mailbox forms and lines of recipients (src/input/items/mailbox.ts): the address inside, and where a line splits.
import { describe, expect, it } from 'vitest';
import { addressIn, isAddressShaped, recipientsOf, splitRecipients, withoutFormatChars } from '../../../src/input/items/mailbox.js';

describe('addressIn', () => {
  it.each([
    ['Jane Doe <jane@example.com>', 'jane@example.com'],
    ['"Doe, Jane" <jane@example.com>', 'jane@example.com'],
    ['Doe, Jane <jane@example.com>', 'jane@example.com'],
    ['<jane@example.com>', 'jane@example.com'],
    ['="jane@example.com"', 'jane@example.com'], // Excel's text formula
    ['Jane Doe [mailto:jane@example.com]', 'jane@example.com'], // Outlook's
    ["'jane@example.com'", 'jane@example.com'],
    ['jo@[192.0.2.1]', 'jo@[192.0.2.1]'],
    ['Jane<jane@example.com>', 'jane@example.com'],
    ['=?UTF-8?B?SmFuZQ==?= <jane@example.com>', 'jane@example.com'],
    ['jane@example.com (Jane Doe)', 'jane@example.com'],
    ['mailto:jane@example.com', 'jane@example.com'],
    ['MAILTO:jane@example.com?subject=Hello&body=x', 'jane@example.com'],
    ['mailto:jane%40example.com', 'jane@example.com'],
    ['<mailto:jane@example.com>', 'jane@example.com'],
    ['EMAIL;type=INTERNET:jane@example.com', 'jane@example.com'],
    ['item1.EMAIL;TYPE=INTERNET;TYPE=pref:jane@example.com', 'jane@example.com'],
    ['EMAIL:jane@example.com', 'jane@example.com'],
    ['"jane@example.com"', 'jane@example.com'],
    ["'jane@example.com'", 'jane@example.com'],
    ['jane@example.com;', 'jane@example.com'],
    ['  jane@example.com\u200b ', 'jane@example.com'],
    ['\u200ejane@exa\u200dmple.com\u202c', 'jane@example.com'],
    ['\ufeffjane@example.com', 'jane@example.com'],
  ])('%j → %j', (text, want) => {
    expect(addressIn(text)).toBe(want);
  });

  it.each([
    ['a@x.com, b@y.com', 'several addresses: no one item'],
    ['Jane <a@x.com>; Bob <b@y.com>', 'several mailboxes'],
    ['a@x.com ::: b@y.com', 'Google joins two so'],
    ['"a b"@example.com', 'a quoted local part keeps its quotes'],
    ['Jane Doe', 'no address at all'],
    ['(Jane) x', 'a parenthesis with nothing before it'],
  ])('%j stays as it is (%s)', (text) => {
    expect(addressIn(text)).toBe(text);
  });
});

describe('recipientsOf', () => {
  it('a To: line: each recipient as written, in order; empty parts (a trailing ;) are none', () => {
    expect(recipientsOf('Jane Doe <jane@gmail.com>, Bob <bob@example.org>, carol@example.com')).toEqual([
      'Jane Doe <jane@gmail.com>',
      'Bob <bob@example.org>',
      'carol@example.com',
    ]);
    expect(recipientsOf('"Diaz, Cy" <cy@example.com>; ann@example.com;')).toEqual(['"Diaz, Cy" <cy@example.com>', 'ann@example.com']);
    expect(recipientsOf('kim.lee@gmail; ann@example.com')).toEqual(['kim.lee@gmail', 'ann@example.com']); // a typo is still a recipient
    expect(recipientsOf('ann@example.com;')).toEqual(['ann@example.com']);
  });
  it("Outlook's To: line, `;` between recipients and `Last, First` names unquoted: cut at `;` alone", () => {
    expect(recipientsOf('Doe, Jane <jane@x.com>; Ray, Bob <bob@y.org>; carol@z.com;')).toEqual(['Doe, Jane <jane@x.com>', 'Ray, Bob <bob@y.org>', 'carol@z.com']);
    expect(recipientsOf('Jane Doe;jane@x.com')).toBeNull(); // a row of cells, not recipients
    expect(recipientsOf('Doe, Jane;jane@x.com')).toBeNull();
  });
  it('a mailto: link to several addresses: each one, its query belonging to none', () => {
    expect(recipientsOf('mailto:a@x.com,b@x.com?subject=hi&cc=c@x.com')).toEqual(['mailto:a@x.com', 'b@x.com']);
    expect(recipientsOf('mailto:c@x.com,d@x.com?subject=Hello, world&cc=e@z.com')).toEqual(['mailto:c@x.com', 'd@x.com']);
  });
  it('anything else is no list of recipients', () => {
    for (const line of ['Ann,ann@example.com,555', 'Smith, John <john@x.com>', 'a@x.com, n/a', '"open, a@x.com', ';;', 'Jane Doe']) {
      expect(recipientsOf(line), line).toBeNull();
    }
  });
  it('splitRecipients cuts outside quotes (with their escapes), <…> and (…) only', () => {
    expect(splitRecipients('"a \\" , b" <x@y.z>, (c, d) e@f.g, <h,i@j.k>')).toEqual(['"a \\" , b" <x@y.z>', '(c, d) e@f.g', '<h,i@j.k>']);
    expect(splitRecipients('<never closed, a@b.c')).toBeNull();
  });
  it('isAddressShaped: one token with text on both sides of its last @', () => {
    expect([isAddressShaped('kim@gmail'), isAddressShaped('a@b@c.d'), isAddressShaped('@x.com'), isAddressShaped('x@'), isAddressShaped('a b@c.d')]).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
  });
  it('withoutFormatChars drops every Unicode format character, and nothing else', () => {
    expect(withoutFormatChars('a\u00ad\u200b\u200c\u200d\u200e\u200f\u202a\u202e\u2060\u2066\u2069\ufeff\u061cb')).toBe('ab');
    expect(withoutFormatChars('bücher.de 日本 \u00a0')).toBe('bücher.de 日本 \u00a0');
  });
});
