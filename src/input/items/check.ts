// Item checks: what can be an address or a domain (what fails is `invalid`: never sent), and the key that makes
// two spellings one item. An item is the address inside a mailbox form (mailbox.ts), without format characters.
import { domainToASCII } from 'node:url';
import type { Kind } from '../../core/defaults.js';
import { addressIn, isAddressShaped, withoutFormatChars } from './mailbox.js';

export interface Item {
  /** What the output shows: the item as read (trimmed); for `domains` given an address, its domain part. */
  item: string;
  send: string;
  /** Dedup and cache key: the item with its domain part lower-cased. */
  key: string;
}

const MAX_EMAIL = 254;
const MAX_DOMAIN = 253;
const SPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f-\u009f]/;
const LOCAL_SPECIALS = /[@,;:<>()[\]\\"]/;
/** What a plain address rarely holds: white space, controls, mailbox-form punctuation and quotes, anything beyond ASCII. */
const UNUSUAL = /[\s\u0000-\u001f\u007f-\uffff<>()":;,'=[\]]/;
const ALL_DIGITS = /^\d+$/;
const HOST_END = /[:/?#]/;
const DOMAIN_FORBIDDEN = /[\s\u0000-\u001f\u007f-\u009f@,;:<>()[\]\\"'/?#!$%&*=^`{|}~]/;
const LONG_LABEL = /[^.]{64}/;
/** A label starting or ending with a hyphen, or over 63 characters (string tests: this runs once an item). */
const badLabel = (name: string) =>
  name.startsWith('-') || name.endsWith('-') || name.includes('.-') || name.includes('-.') || (name.length > 63 && LONG_LABEL.test(name));

/**
 * A host name with at least one dot, no empty label, and no label that starts or ends with a hyphen or is
 * longer than 63 characters (one trailing dot allowed: `example.com.`); or an address literal like [192.0.2.1].
 */
function isDomain(d: string): boolean {
  if (d.length === 0 || d.length > MAX_DOMAIN) return false;
  if (d.startsWith('[') && d.endsWith(']')) return d.length > 2 && !SPACE_OR_CONTROL.test(d);
  if (DOMAIN_FORBIDDEN.test(d)) return false;
  const name = d.endsWith('.') ? d.slice(0, -1) : d;
  const dot = name.indexOf('.');
  if (dot <= 0 || name.endsWith('.') || name.includes('..') || badLabel(name)) return false;
  // A top-level label of digits only is a number (3.5) or a bare IPv4 address, not a domain.
  return !ALL_DIGITS.test(name.slice(name.lastIndexOf('.') + 1));
}

export function checkEmail(raw: string): Item | null {
  let item = raw.trim();
  const unusual = UNUSUAL.test(item);
  if (unusual) {
    // The slow way, for the few items that need it: the address inside a mailbox form, format characters out.
    item = addressIn(item);
    if (SPACE_OR_CONTROL.test(item)) return null;
  }
  if (item.length === 0 || item.length > MAX_EMAIL) return null;
  const at = item.lastIndexOf('@');
  if (at <= 0 || at === item.length - 1) return null;
  const local = item.slice(0, at);
  const domain = item.slice(at + 1);
  // An unquoted local part holds no other @, comma, semicolon, bracket or quote (`Ann,ann@x.com` is a row read with
  // the wrong delimiter); without `unusual` characters only the @ needs looking for.
  if (!(local.startsWith('"') && local.endsWith('"') && local.length > 1) && (unusual ? LOCAL_SPECIALS.test(local) : local.includes('@'))) return null;
  if (domain.endsWith('.') || !isDomain(domain)) return null;
  const lower = domain.toLowerCase();
  return { item, send: item, key: lower === domain ? item : local + '@' + lower };
}

/**
 * The host of a URL as written: after `scheme://`, before the path, query or fragment, without user
 * information and port. (URL.hostname would give it lower-cased and in punycode: idv keeps what the user wrote.)
 */
function hostOfUrl(text: string): string {
  const rest = text.slice(text.indexOf('://') + 3);
  const end = rest.search(/[/?#\\]/);
  let authority = end === -1 ? rest : rest.slice(0, end);
  authority = authority.slice(authority.lastIndexOf('@') + 1);
  if (authority.startsWith('[')) return authority.slice(0, authority.indexOf(']') + 1);
  return authority.replace(/:\d*$/, '');
}

/**
 * A domain, an address (its domain part), or a URL (its host). The item is the host as written (Unicode
 * stays Unicode); what is sent and the dedup key are one canonical form: lower case, punycode, no trailing
 * dot. So `bücher.de`, `BÜCHER.de.` and `https://bücher.de/` are one item, sent once.
 */
export function checkDomain(raw: string): Item | null {
  let text = raw.trim();
  if (UNUSUAL.test(text)) text = text.includes('@') ? addressIn(text) : withoutFormatChars(text).trim();
  if (text.length === 0) return null;
  let domain: string;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) domain = hostOfUrl(text);
  else if (text.includes('://')) return null;
  else {
    const at = text.lastIndexOf('@');
    if (at >= 0) {
      const address = checkEmail(text)?.item;
      if (address === undefined) return null;
      domain = address.slice(address.lastIndexOf('@') + 1);
    } else {
      // A website written without its scheme, as spreadsheets hold them: www.globex.com:8080/about → its host.
      const end = text.startsWith('[') ? -1 : text.search(HOST_END);
      domain = end > 0 ? text.slice(0, end) : text;
    }
  }
  // An address literal ([192.0.2.1], a URL's [2001:db8::1]) is no domain to validate.
  if (domain.startsWith('[') || !isDomain(domain)) return null;
  const canonical = canonicalHost(domain);
  if (canonical === null) return null;
  return { item: domain, send: canonical, key: canonical };
}

/** Lower case, punycode, no trailing dot; null when it is no valid host name (domainToASCII refuses it). */
function canonicalHost(domain: string): string | null {
  const name = domain.endsWith('.') ? domain.slice(0, -1) : domain;
  if (/^[\x21-\x7e]+$/.test(name)) return name.toLowerCase();
  const ascii = domainToASCII(name.toLowerCase());
  return ascii !== '' && isDomain(ascii) ? ascii : null;
}

export function checkerFor(kind: Kind): (raw: string) => Item | null {
  return kind === 'emails' ? checkEmail : checkDomain;
}

const AROUND_AT = /\S@\S/;
const URL_LIKE = /[a-z][a-z0-9+.-]*:\/\/[^\s/]/i;
/**
 * A host name with a top-level label of two letters or more, standing on its own in the text. Made on first use:
 * the bundle makes a pattern of Unicode classes with new RegExp(), which builds the classes at once.
 */
let hostLike: RegExp | undefined;
const isHostLike = (text: string) =>
  (hostLike ??= /(?:^|[\s,;(<"'\[])(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+\p{L}[\p{L}\p{N}-]*\p{L}\.?(?=$|[\s,;:/?#)>"'\]])/u).test(text);

/**
 * Text that could be an item, however mistyped, as the record rule counts it: for emails, text right on both
 * sides of an `@`; for domains, that or a URL or a host name. A row holding such text is never skipped.
 */
export function itemLike(kind: Kind, text: string): boolean {
  if (AROUND_AT.test(text)) return true;
  return kind === 'domains' && (URL_LIKE.test(text) || isHostLike(text));
}

/**
 * A cell shaped like one item, maybe mistyped (`kim@gmail`, `acme.c`): what the column choice counts. Text holding
 * more than that (`Ann,ann@x.com` under a wrong --delimiter) is not.
 */
export function itemShaped(kind: Kind, text: string): boolean {
  if (checkerFor(kind)(text) !== null) return true;
  const t = text.includes('@') || UNUSUAL.test(text) ? addressIn(text) : text.trim();
  if (isAddressShaped(t)) return true;
  return kind === 'domains' && !/\s/.test(t) && (URL_LIKE.test(t) || isHostLike(t));
}
