// The sandbox's verdicts: pure, deterministic, in the order the README gives (disposable, fake, alias, ok).
// `example.com` and `example.org` are `ok`: the API docs use them.

/** Well-known disposable mail providers. Subdomains count too (`x.mailinator.com`). */
export const DISPOSABLE_DOMAINS: readonly string[] = [
  'mailinator.com',
  'guerrillamail.com',
  'guerrillamail.net',
  '10minutemail.com',
  'yopmail.com',
  'trashmail.com',
  'sharklasers.com',
  'maildrop.cc',
  'tempmail.com',
  'temp-mail.org',
  'getnada.com',
  'dispostable.com',
  'throwawaymail.com',
  'mailnesia.com',
  'fakeinbox.com',
  'mytemp.email',
];

/** Domains the sandbox calls `fake`. Subdomains count too. */
export const FAKE_DOMAINS: readonly string[] = [
  'fake.com',
  'fakemail.net',
  'nowhere.org',
  'asdf.com',
  'qwerty.com',
  'test.com',
];

/** Reserved top-level domains (RFC 2606 / RFC 6761): never a real mailbox. */
export const FAKE_TLDS: readonly string[] = ['test', 'invalid', 'example', 'localhost'];

function normalizeDomain(domain: string): string {
  const lower = domain.trim().toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower; // fully-qualified form: `mailinator.com.`
}

function isOnList(domain: string, list: readonly string[]): boolean {
  return list.some((entry) => domain === entry || domain.endsWith('.' + entry));
}

function hasFakeTld(domain: string): boolean {
  const tld = domain.slice(domain.lastIndexOf('.') + 1);
  return FAKE_TLDS.includes(tld);
}

/** `disposable`, `fake` or `ok` for a bare domain (already normalized). */
function classifyNormalizedDomain(domain: string): string {
  if (domain === '') return 'fake';
  if (isOnList(domain, DISPOSABLE_DOMAINS)) return 'disposable';
  if (hasFakeTld(domain) || isOnList(domain, FAKE_DOMAINS)) return 'fake';
  return 'ok';
}

/** Status of an item sent to /domains/validate: `disposable`, `fake` or `ok`. */
export function classifyDomain(item: string): string {
  return classifyNormalizedDomain(normalizeDomain(item));
}

/** Status of an item sent to /emails/validate: `disposable`, `fake`, `alias` or `ok`. */
export function classifyEmail(item: string): string {
  const email = item.trim();
  const at = email.lastIndexOf('@');
  if (at < 0) return 'fake';
  const local = email.slice(0, at);
  const domain = normalizeDomain(email.slice(at + 1));
  if (local === '' || domain === '') return 'fake';
  const byDomain = classifyNormalizedDomain(domain);
  if (byDomain !== 'ok') return byDomain;
  if (local.includes('+')) return 'alias';
  return 'ok';
}
