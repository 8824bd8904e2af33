// Item checks: what can be an address or a domain, and the key that makes two spellings one item.
// Anything that fails here is `invalid`: never sent, costs no quota.
import type { Kind } from '../defaults.js';

export interface Item {
  /** What the output shows: the item as read (trimmed); for `domains` given an address, its domain part. */
  item: string;
  /** What is sent to the service. */
  send: string;
  /** Dedup and cache key: the item with its domain part lower-cased. */
  key: string;
}

const MAX_EMAIL = 254;
const MAX_DOMAIN = 253;
const SPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f]/;
const ALL_DIGITS = /^\d+$/;
const HOST_END = /[:/?#]/;
const DOMAIN_FORBIDDEN = /[\s\u0000-\u001f\u007f@,;:<>()[\]\\"'/?#!$%&*=^`{|}~]/;

/** A host name with at least one dot and no empty label; or an address literal like [192.0.2.1]. */
export function isDomain(d: string): boolean {
  if (d.length === 0 || d.length > MAX_DOMAIN) return false;
  if (d.startsWith('[') && d.endsWith(']')) return d.length > 2 && !SPACE_OR_CONTROL.test(d);
  if (DOMAIN_FORBIDDEN.test(d)) return false;
  const dot = d.indexOf('.');
  if (dot <= 0 || d.endsWith('.') || d.includes('..')) return false;
  // A top-level label of digits only is a number (3.5) or a bare IPv4 address, not a domain.
  return !ALL_DIGITS.test(d.slice(d.lastIndexOf('.') + 1));
}

export function checkEmail(raw: string): Item | null {
  const item = raw.trim();
  if (item.length === 0 || item.length > MAX_EMAIL) return null;
  const at = item.lastIndexOf('@');
  if (at <= 0 || at === item.length - 1) return null;
  if (SPACE_OR_CONTROL.test(item)) return null;
  const local = item.slice(0, at);
  const domain = item.slice(at + 1);
  // An unquoted local part cannot hold another @.
  if (local.includes('@') && !(local.startsWith('"') && local.endsWith('"') && local.length > 1)) return null;
  if (!isDomain(domain)) return null;
  const lower = domain.toLowerCase();
  return { item, send: item, key: lower === domain ? item : local + '@' + lower };
}

/** A domain, an address (its domain part), or a URL (its host). */
export function checkDomain(raw: string): Item | null {
  const text = raw.trim();
  if (text.length === 0) return null;
  let domain: string;
  if (text.includes('://')) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return null;
    }
    domain = url.hostname;
  } else {
    const at = text.lastIndexOf('@');
    if (at >= 0) {
      if (checkEmail(text) === null) return null;
      domain = text.slice(at + 1);
    } else {
      // A website written without its scheme, as spreadsheets hold them: www.globex.com:8080/about → its host.
      const end = text.startsWith('[') ? -1 : text.search(HOST_END);
      domain = end > 0 ? text.slice(0, end) : text;
    }
  }
  if (!isDomain(domain)) return null;
  const key = domain.toLowerCase();
  return { item: domain, send: domain, key };
}

export function checkerFor(kind: Kind): (raw: string) => Item | null {
  return kind === 'emails' ? checkEmail : checkDomain;
}

/** Whether a value looks like an item of this kind (used to find the item column). */
export function looksLike(kind: Kind, value: string): boolean {
  return checkerFor(kind)(value) !== null;
}
