// Which header names the item column (src/input/layout/headers.ts), in the languages spreadsheets and CRMs use.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { headerRank, isKnownName, normaliseHeader } from '../../../src/input/layout/headers.js';

describe('header names', () => {
  it('are compared after Unicode normalisation: case, marks, width and punctuation do not count', () => {
    expect(normaliseHeader(' E-Mail-Adresse ')).toBe('emailadresse');
    expect(normaliseHeader('Ｅｍａｉｌ　Ａｄｄｒｅｓｓ')).toBe('emailaddress'); // full-width, as Japanese keyboards type it
    expect(normaliseHeader('Correo Electrónico')).toBe(normaliseHeader('correo_electronico'));
    expect(normaliseHeader('ЭЛЕКТРОННАЯ ПОЧТА')).toBe(normaliseHeader('электронная почта'));
  });

  it('ASCII names take a short way to the same normal form as the full Unicode one', () => {
    const full = (h: string) => h.normalize('NFKD').replace(/\p{M}/gu, '').normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
    const ascii = fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)), maxLength: 30 });
    fc.assert(fc.property(ascii, (h) => normaliseHeader(h) === full(h)), { seed: 20261125, numRuns: 500 });
    expect(normaliseHeader('Ｅｍａｉｌ')).toBe('email'); // not ASCII: the full way
  });

  it('a line holding an @ is never a header name, even one that would normalise to one (`e@mail` is a record)', () => {
    expect(isKnownName('E-Mail')).toBe(true);
    expect(isKnownName('e@mail')).toBe(false);
    expect(isKnownName('')).toBe(false);
  });

  // The ten most spoken languages, the EU's, and others, as products and people name the column.
  it.each([
    'Email', 'E-mail Address', 'Email Address', 'user_email', 'emailAddress', 'Primary Email', 'EMAIL',
    '电子邮件', '邮箱', '電子郵件', 'ईमेल', 'ई-मेल पता', 'Correo electrónico', 'Dirección de correo electrónico', 'Courriel',
    'Adresse e-mail', 'Adresse de messagerie', 'البريد الإلكتروني', 'ইমেইল', 'Endereço de e-mail', 'Электронная почта',
    'Эл. почта', 'ای میل', 'メールアドレス', 'Eメール', '이메일', '전자 메일 주소', 'E-Mail-Adresse', 'Indirizzo email',
    'E-mailadres', 'Adres e-mail', 'E-mailová adresa', 'E-mail cím', 'Adresă de e-mail', 'Имейл', 'Ηλεκτρονικό ταχυδρομείο',
    'Αλληλογραφία', 'E-posta', 'E-postadress', 'Sähköposti', 'E-pošta', 'E-pasts', 'El. paštas', 'E-posti aadress',
    'Ríomhphost', 'Indirizz tal-email', 'E-mailadresse', 'Електронна пошта', 'Thư điện tử', 'Alamat email', 'אימייל',
    'דוא"ל', 'อีเมล', 'ایمیل',
  ])('%s names the email column', (name) => {
    expect(headerRank('emails', name)).toBe(4);
    expect(isKnownName(name)).toBe(true);
  });

  it.each(['Website', 'Domain', 'URL', 'Site web', 'Sitio web', 'Webseite', 'Сайт', '网站', 'ウェブサイト', '웹사이트', 'Alan adı', 'Strona internetowa'])(
    '%s names the domain column',
    (name) => {
      expect(headerRank('domains', name)).toBe(4);
      expect(isKnownName(name)).toBe(true);
    },
  );

  it('ranks: a known name, a name holding the word, a secondary address, a column about addresses, none', () => {
    const rank = (h: string) => headerRank('emails', h);
    expect([rank('Email'), rank('Customer Email'), rank('担当者メール')]).toEqual([4, 3, 2]);
    expect(['billing_email', 'Secondary Email', 'E-mail 2 Address', 'Owner Email', 'Contact owner email', 'E-Mail-Adresse 2'].map(rank)).toEqual([2, 2, 2, 2, 2, 2]);
    expect(['Email Opt Out', 'E-mail 1 - Type', 'Mailing List', 'Email Status', 'Email Marketing Consent'].map(rank)).toEqual([1, 1, 1, 1, 1]);
    expect(['Name', 'Phone', '', 'Contact'].map(rank)).toEqual([0, 0, 0, 0]);
  });

  it('a known name of either kind is a plain list\'s header; other words are not', () => {
    expect(['email', 'E-mail Address', 'domain', 'website', 'Website URL'].every(isKnownName)).toBe(true);
    expect(['not-an-email', 'jane.doe@hotmail', 'mail me', 'Emails to check', 'localhost'].some(isKnownName)).toBe(false);
  });
});
