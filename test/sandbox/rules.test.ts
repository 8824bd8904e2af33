// The sandbox's verdicts (src/sandbox/rules.ts): pure, deterministic, documented in the README.
import { describe, expect, it } from 'vitest';
import { classifyDomain, classifyEmail, DISPOSABLE_DOMAINS, FAKE_DOMAINS, FAKE_TLDS } from '../../src/sandbox/rules.js';

describe('rules', () => {
  it('classifies disposable providers and their subdomains', () => {
    expect(classifyEmail('a@mailinator.com')).toBe('disposable');
    expect(classifyEmail('A@MAILINATOR.COM')).toBe('disposable');
    expect(classifyEmail('a@eu.mailinator.com')).toBe('disposable');
    expect(classifyEmail('a+tag@yopmail.com')).toBe('disposable'); // domain rule first
    expect(classifyDomain('Guerrillamail.com')).toBe('disposable');
    expect(classifyDomain('x.maildrop.cc')).toBe('disposable');
    expect(classifyDomain('notmailinator.com')).toBe('ok');
    for (const d of DISPOSABLE_DOMAINS) expect(classifyDomain(d)).toBe('disposable');
    expect(DISPOSABLE_DOMAINS.length).toBeGreaterThanOrEqual(15);
  });

  it('classifies reserved TLDs and the fake list as fake', () => {
    for (const tld of FAKE_TLDS) expect(classifyEmail(`a@foo.${tld}`)).toBe('fake');
    for (const d of FAKE_DOMAINS) expect(classifyDomain(d)).toBe('fake');
    expect(classifyEmail('a+b@shop.test')).toBe('fake');
    expect(classifyDomain('example.test')).toBe('fake');
    expect(classifyEmail('no-at-sign')).toBe('fake');
    expect(classifyEmail('@example.com')).toBe('fake');
    expect(classifyEmail('a@')).toBe('fake');
    expect(classifyDomain('latest.com')).toBe('ok'); // not a subdomain of test.com
  });

  it('classifies plus-aliases (emails only) and the rest as ok', () => {
    expect(classifyEmail('name+news@example.com')).toBe('alias');
    expect(classifyEmail('a@b@example.org')).toBe('ok'); // the part after the last @
    expect(classifyEmail('jane@example.com')).toBe('ok');
    expect(classifyEmail('jane@example.org')).toBe('ok');
    expect(classifyDomain('example.com')).toBe('ok');
    expect(classifyDomain('plus+sign.com')).toBe('ok'); // no alias status for domains
  });
});
