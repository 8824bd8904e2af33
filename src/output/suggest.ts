// --suggest: a likely intended address for one whose domain looks mistyped (jane@gmial.com → jane@gmail.com).
// False positives matter more than misses: a wrong suggestion sends a subscriber's mail elsewhere. So:
// - a domain that is itself well known (or a subdomain of one) gets none: gmx.com is not a typo of gmail.com;
// - one edit (a letter added, dropped, changed, or two neighbours swapped) away from a well-known provider,
//   but only from providers whose name has at least MIN_LABEL letters: short names (aol, msn, gmx, web…) have
//   too many real neighbours (aon.com, gmc.com…);
// - or a provider's own name with `.com` mistyped (`hotmail.con`, `aol.cmo`): those endings are no real domain;
// - an edit that falls in the provider's ending (`.fr`, `.co.uk`) only when what was typed ends in no real
//   top-level domain (`comcast.ent`, `hotmail.co.ul`): `yahoo.gr`, `hotmail.be`, `outlook.dk` are the same
//   providers' real domains in other countries, not typos of `yahoo.fr`, `hotmail.de`, `outlook.de`;
// - and only when exactly one provider fits;
// - a domain without a dot that is a provider's name (`x@gmail`, `@hotmail`), or one edit of a long enough
//   one (`gmial`), gets that provider: such a domain cannot be a real one.
// The list is written out in the README. Suggestions are never sent to the service and never change the item.

/** Well-known mail providers (the domains people type by hand). */
export const PROVIDERS: readonly string[] = [
  'gmail.com', 'googlemail.com',
  'yahoo.com', 'yahoo.co.uk', 'yahoo.fr', 'yahoo.de', 'yahoo.es', 'yahoo.it', 'yahoo.ca', 'yahoo.com.au', 'yahoo.co.jp', 'ymail.com', 'rocketmail.com',
  'hotmail.com', 'hotmail.co.uk', 'hotmail.fr', 'hotmail.de', 'hotmail.es', 'hotmail.it',
  'outlook.com', 'outlook.fr', 'outlook.de', 'live.com', 'live.co.uk', 'live.fr', 'msn.com',
  'icloud.com', 'me.com', 'mac.com',
  'aol.com', 'aim.com',
  'protonmail.com', 'proton.me', 'pm.me', 'tutanota.com', 'fastmail.com', 'hey.com', 'zoho.com',
  'gmx.com', 'gmx.de', 'gmx.net', 'gmx.at', 'web.de', 't-online.de', 'freenet.de',
  'mail.com', 'mail.ru', 'yandex.ru', 'yandex.com', 'rambler.ru',
  'orange.fr', 'wanadoo.fr', 'free.fr', 'laposte.net', 'sfr.fr', 'libero.it', 'virgilio.it',
  'qq.com', '163.com', '126.com', 'naver.com', 'daum.net',
  'comcast.net', 'verizon.net', 'att.net', 'sbcglobal.net', 'bellsouth.net', 'charter.net', 'cox.net', 'earthlink.net',
  'btinternet.com', 'sky.com', 'virginmedia.com', 'ntlworld.com', 'talktalk.net',
  'shaw.ca', 'rogers.com', 'sympatico.ca', 'telus.net', 'bigpond.com', 'optusnet.com.au', 'xtra.co.nz',
];

/** The lookup tables, made on first use: a run without --suggest never needs them. */
let tables: ReturnType<typeof makeTables> | undefined;
function makeTables() {
  /** Endings people type for `.com`; none is a real top-level domain. */
  const COM_TYPOS = new Set(['con', 'cmo', 'ocm', 'cm', 'om', 'co', 'comm', 'coom', 'cpm', 'vom', 'xom', 'c0m', 'comn', 'cim', 'clm', 'conm']);
  /** Top-level domains that exist: every country code, and the common generic ones. */
  const REAL_TLDS = new Set(
    (
      'ac ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bm bn bo br bs bt bw by bz ca cc cd cf cg ch ' +
      'ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk dm do dz ec ee eg er es et eu fi fj fk fm fo fr ga gb gd ge gf gg gh gi gl ' +
      'gm gn gp gq gr gs gt gu gw gy hk hm hn hr ht hu id ie il im in io iq ir is it je jm jo jp ke kg kh ki km kn kp kr kw ky kz ' +
      'la lb lc li lk lr ls lt lu lv ly ma mc md me mg mh mk ml mm mn mo mp mq mr ms mt mu mv mw mx my mz na nc ne nf ng ni nl no ' +
      'np nr nu nz om pa pe pf pg ph pk pl pm pn pr ps pt pw py qa re ro rs ru rw sa sb sc sd se sg sh si sk sl sm sn so sr ss st ' +
      'su sv sx sy sz tc td tf tg th tj tk tl tm tn to tr tt tv tw tz ua ug uk us uy uz va vc ve vg vi vn vu wf ws ye yt za zm zw ' +
      'com net org edu gov mil int info biz name pro aero coop museum jobs mobi travel tel asia cat app dev page xyz online site ' +
      'top club shop store tech live email'
    ).split(' '),
  );
  const KNOWN = new Set(PROVIDERS);
  const BY_LABEL = new Map<string, string>();
  for (const p of PROVIDERS) if (p.endsWith('.com')) BY_LABEL.set(p.slice(0, -4), p);
  /** A provider by its name alone (`gmail`, `web`): the first of the list with that name (yahoo.com, not yahoo.fr). */
  const BY_NAME = new Map<string, string>();
  for (const p of PROVIDERS) if (!BY_NAME.has(p.slice(0, p.indexOf('.')))) BY_NAME.set(p.slice(0, p.indexOf('.')), p);
  const EDIT_TARGETS = PROVIDERS.filter((p) => p.split('.')[0]!.length >= MIN_LABEL);
  return { COM_TYPOS, REAL_TLDS, KNOWN, BY_LABEL, BY_NAME, EDIT_TARGETS };
}
/** A provider's name (its first label) shorter than this takes no one-edit suggestion. */
const MIN_LABEL = 5;


/** The provider a mistyped domain most likely meant, or null. `domain` is lower-cased by the caller. */
export function suggestDomain(domain: string): string | null {
  const { COM_TYPOS, REAL_TLDS, KNOWN, BY_LABEL, EDIT_TARGETS } = (tables ??= makeTables());
  const d = domain.toLowerCase().replace(/\.$/, '');
  if (KNOWN.has(d) || PROVIDERS.some((p) => d.endsWith('.' + p))) return null;
  const named = d.includes('.') ? null : byName(d);
  if (named !== null) return named;
  const dot = d.lastIndexOf('.');
  if (dot > 0) {
    const provider = BY_LABEL.get(d.slice(0, dot));
    if (provider && COM_TYPOS.has(d.slice(dot + 1))) return provider;
  }
  let found: string | null = null;
  const typedTld = d.slice(dot + 1);
  for (const p of EDIT_TARGETS) {
    if (Math.abs(p.length - d.length) > 1 || !oneEdit(d, p)) continue;
    // The edit is in the ending (the name and its dot are intact): a real ending is another domain, not a typo.
    const ending = p.slice(p.indexOf('.'));
    if (!d.endsWith(ending) && d.startsWith(p.slice(0, p.indexOf('.') + 1)) && REAL_TLDS.has(typedTld)) continue;
    if (found !== null) return null; // two providers fit: no guess
    found = p;
  }
  return found;
}

/**
 * A domain without a dot is no domain: a provider's name typed without its ending (`gmail`, `hotmail`) gets
 * the provider; so does one edit of a name long enough (`gmial`), when exactly one provider fits.
 */
function byName(name: string): string | null {
  const { BY_NAME } = (tables ??= makeTables());
  const exact = BY_NAME.get(name);
  if (exact !== undefined) return exact;
  if (name.length < MIN_LABEL - 1) return null;
  const fits = new Set([...BY_NAME].filter(([label]) => label.length >= MIN_LABEL && oneEdit(name, label)).map(([, p]) => p));
  return fits.size === 1 ? [...fits][0]! : null;
}

/** The suggestion for an item: an address with its domain mended, or a domain; null when none. */
export function suggest(kind: 'emails' | 'domains', item: string): string | null {
  if (kind === 'domains') return suggestDomain(item);
  const at = item.lastIndexOf('@');
  if (at <= 0) return null;
  const better = suggestDomain(item.slice(at + 1));
  return better === null ? null : `${item.slice(0, at)}@${better}`;
}

/** Whether a and b differ by exactly one insertion, deletion, substitution, or swap of two neighbours. */
export function oneEdit(a: string, b: string): boolean {
  if (a === b) return false;
  if (a.length === b.length) {
    let i = 0;
    while (a[i] === b[i]) i++;
    if (a.slice(i + 1) === b.slice(i + 1)) return true; // one substitution
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2); // one swap
  }
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  if (long.length - short.length !== 1) return false;
  let i = 0;
  while (i < short.length && short[i] === long[i]) i++;
  return short.slice(i) === long.slice(i + 1);
}
