// Column names: which header names the item column (email, domain) in the languages spreadsheets and CRMs
// are used in (the ten most spoken, the EU's twenty-four, and others), as products and people write them.
// Names are compared after Unicode normalisation (NFKC, then case, marks and everything but letters and
// digits dropped), so `E-Mail-Adresse`, `e_mail_adresse` and `EMAIL ADRESSE` are one name.
import type { Kind } from '../../core/defaults.js';

/** A header name reduced to its letters and digits, lower case, without marks. */
export function normaliseHeader(h: string): string {
  // ASCII has no marks and no compatibility forms: the two normalisations would give it back unchanged.
  if (/^[\x00-\x7f]*$/.test(h)) return h.toLowerCase().replace(/[^a-z0-9]/g, '');
  return h
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
}

const EMAIL_NAMES = [
  // English, and how products write it
  'email', 'emails', 'e-mail', 'email address', 'e-mail address', 'email addresses', 'mail', 'mail address',
  'e address', 'email id', 'primary email', 'work email', 'personal email', 'contact email', 'user email',
  'user_email', 'subscriber email', 'email field', 'emailaddress', 'mailprimaryaddress', 'internet address',
  // French, Spanish, Portuguese, Italian, Catalan, Galician, Romanian
  'courriel', 'adresse email', 'adresse e-mail', 'adresse mail', 'adresse courriel', 'adresse électronique',
  'adresse de messagerie', 'mél', 'correo', 'correo electrónico', 'correo-e', 'dirección de correo',
  'dirección de correo electrónico', 'dirección de email', 'endereço de email', 'endereço de e-mail',
  'endereço eletrónico', 'endereço eletrônico', 'correio eletrónico', 'correio eletrônico', 'posta elettronica',
  'indirizzo email', 'indirizzo e-mail', 'indirizzo di posta elettronica', 'indirizzo posta elettronica',
  'correu electrònic', 'adreça electrònica', 'enderezo electrónico', 'adresă de email', 'adresă de e-mail',
  'adresa de email', 'poștă electronică',
  // German, Dutch, the Nordic languages, Estonian
  'e-mail-adresse', 'emailadresse', 'mailadresse', 'e-mailadres', 'emailadres', 'mailadres', 'e-post',
  'e-postadress', 'e-postadresse', 'epost', 'mejl', 'mejladress', 'sähköposti', 'sähköpostiosoite', 's-posti',
  'netfang', 'e-posti aadress', 'meiliaadress',
  // Central and Eastern Europe, the Baltic, Greek, Maltese, Irish
  'adres e-mail', 'adres email', 'poczta elektroniczna', 'adres poczty elektronicznej', 'e-mailová adresa',
  'emailová adresa', 'elektronická pošta', 'e-mail cím', 'email cím', 'e-mail-cím', 'e-pošta', 'adresa e-pošte',
  'elektronička pošta', 'elektronska pošta', 'e-poštni naslov', 'e-naslov', 'e-pasts', 'e-pasta adrese',
  'el. paštas', 'el. pašto adresas', 'elektroninis paštas', 'e-paštas', 'ηλεκτρονικό ταχυδρομείο',
  'ηλ. ταχυδρομείο', 'διεύθυνση email', 'διεύθυνση ηλεκτρονικού ταχυδρομείου', 'αλληλογραφία',
  'posta elettronika', 'indirizz tal-email', 'ríomhphost', 'seoladh ríomhphoist',
  // Cyrillic: Russian, Ukrainian, Bulgarian, Serbian
  'электронная почта', 'эл. почта', 'эл.почта', 'е-мейл', 'емейл', 'имейл', 'почта', 'адрес электронной почты',
  'электронный адрес', 'адрес эл. почты', 'електронна пошта', 'ел. пошта', 'імейл', 'адреса електронної пошти',
  'електронна поща', 'имейл адрес', 'е-поща', 'е-пошта', 'адреса е-поште',
  // Turkish, Indonesian, Malay, Vietnamese, Swahili
  'e-posta', 'eposta', 'e-posta adresi', 'elektronik posta', 'surel', 'alamat email', 'alamat e-mail',
  'surat elektronik', 'e-mel', 'emel', 'alamat e-mel', 'thư điện tử', 'địa chỉ email', 'barua pepe',
  // Chinese, Japanese, Korean
  '电子邮件', '电子邮箱', '邮箱', '邮件', '邮件地址', '电子邮件地址', '邮箱地址', '电邮', '電子郵件', '電子郵箱',
  '郵箱', '電郵', '電子郵件地址', '郵件地址', '信箱', '電子信箱', 'メールアドレス', 'メール', 'eメール',
  'eメールアドレス', '電子メール', '電子メールアドレス', 'メアド', '이메일', '이메일 주소', '전자우편', '전자 메일',
  '전자 메일 주소', '메일', '메일 주소',
  // Arabic, Persian, Urdu, Hebrew
  'البريد الإلكتروني', 'البريد الالكتروني', 'بريد إلكتروني', 'بريد الكتروني', 'عنوان البريد الإلكتروني',
  'الإيميل', 'ايميل', 'إيميل', 'ایمیل', 'پست الکترونیک', 'نشانی ایمیل', 'رایانامه', 'ای میل', 'ای میل ایڈریس',
  'דוא"ל', 'דואר אלקטרוני', 'אימייל', 'כתובת דוא"ל', 'כתובת אימייל', 'מייל',
  // South Asia and South-East Asia
  'ईमेल', 'ई-मेल', 'ईमेल पता', 'ई-मेल पता', 'ईमेल आईडी', 'ইমেইল', 'ই-মেইল', 'ইমেল', 'ইমেইল ঠিকানা',
  'மின்னஞ்சல்', 'ఇమెయిల్', 'ईमेल आयडी', 'ઈમેલ', 'ਈਮੇਲ', 'อีเมล', 'อีเมล์', 'ที่อยู่อีเมล',
];

const DOMAIN_NAMES = [
  'domain', 'domains', 'domain name', 'website', 'websites', 'web site', 'web', 'site', 'url', 'homepage',
  'home page', 'host', 'hostname', 'company domain', 'company website', 'website url', 'company domain name',
  'site web', 'site internet', 'domaine', 'nom de domaine', 'sitio web', 'página web', 'dominio', 'domínio',
  'página', 'sito web', 'sito', 'webseite', 'internetseite', 'internetadresse', 'domäne', 'webadres', 'domein',
  'strona www', 'strona internetowa', 'domena', 'witryna', 'webová stránka', 'doména', 'weboldal', 'honlap',
  'webbplats', 'hemsida', 'domän', 'hjemmeside', 'websted', 'domæne', 'nettside', 'verkkosivusto', 'kotisivu',
  'verkkotunnus', 'domeniu', 'ιστοσελίδα', 'ιστότοπος', 'τομέας', 'сайт', 'веб-сайт', 'домен', 'адрес сайта',
  'уебсайт', 'домейн', 'вебсайт', 'web sitesi', 'alan adı', 'internet sitesi', 'situs web', 'laman web',
  'trang web', 'tên miền', '网站', '网址', '域名', '網站', '網址', 'ウェブサイト', 'ホームページ', 'ドメイン',
  'サイト', '웹사이트', '홈페이지', '도메인', 'الموقع الإلكتروني', 'موقع الويب', 'النطاق', 'الموقع', 'وب‌سایت',
  'دامنه', 'אתר', 'אתר אינטרנט', 'דומיין', 'वेबसाइट', 'डोमेन', 'ওয়েবসাইট', 'เว็บไซต์', 'โดเมน',
];

/** The tables, normalised when first asked for: a run that meets no header never builds them. */
const buildTables = () => ({
  names: { emails: new Set(EMAIL_NAMES.map(normaliseHeader)), domains: new Set(DOMAIN_NAMES.map(normaliseHeader)) },
  itemWords: { emails: words(ITEM_WORDS.emails), domains: words(ITEM_WORDS.domains) },
  sideWords: words(SIDE_WORDS),
  secondaryWords: words(SECONDARY_WORDS),
});
let tables: ReturnType<typeof buildTables> | undefined;
const theTables = () => (tables ??= buildTables());

/** Words that name an item column inside a longer name (`Billing Email`, `E-mail 2 Address`, `担当者メール`). */
const ITEM_WORDS: Record<Kind, string> = {
  emails:
    'mail courriel correo epost eposta sähköposti poczt pošt почт пошт поща мейл имейл ταχυδρομ 邮箱 邮件 郵件 郵箱 電郵 メール 메일 ' +
    'بريد ایمیل דוא ईमेल ইমেইল อีเมล',
  domains: 'domain website webseite url host homepage site домен сайт 域名 网站 網站 ドメイン 도메인',
};
/** Words of a column that is not the item itself though its name holds the item's word (Email Type, Email Opt Out…). */
const SIDE_WORDS =
  'type label kind status optout optin opted consent marketing verified valid bounce date time count format subscri ' +
  'permission flag list typ tipo statut estado';
/** Words of a secondary address (billing, second, the owner's…): the main column wins over these. */
const SECONDARY_WORDS =
  'billing shipping secondary second other alternat backup 2 3 4 5 bcc owner assigned created modified updated manager ' +
  'agent staff sales factur livraison envío rechnung liefer 担当 所有者 作成者 负责 所有人 创建 負責 담당 владел ' +
  'ответствен responsable propriétaire besitzer zuständig eigentümer proprietario responsabile eigenaar właściciel ' +
  'opiekun sorumlu sahibi';

/** Space-separated words, each normalised as header names are. */
function words(list: string): string[] {
  return list.split(' ').map(normaliseHeader);
}
const holds = (name: string, list: readonly string[]) => list.some((w) => name.includes(w));

/**
 * How well a header names the item column: 4 a known name, 3 a name that holds the item's word, 2 the same
 * naming a secondary address, 1 a name with a side word (not the address itself), 0 none.
 */
export function headerRank(kind: Kind, header: string): number {
  const n = normaliseHeader(header);
  if (n.length === 0) return 0;
  const t = theTables();
  if (t.names[kind].has(n)) return 4;
  if (!holds(n, t.itemWords[kind])) return 0;
  if (holds(n, t.sideWords)) return 1;
  return holds(n, t.secondaryWords) ? 2 : 3;
}

/** Whether `header` is exactly a known name of the item column of either kind (a plain list's header line). */
export function isKnownName(header: string): boolean {
  if (header.includes('@')) return false; // an address, never a name (`e@mail` would normalise to one)
  const n = normaliseHeader(header);
  if (n.length === 0) return false;
  const { names } = theTables();
  return names.emails.has(n) || names.domains.has(n);
}
