// An export or a paste in, every address out: the shapes people really have (recipients copied from a mail
// client, Excel's dropped trailing delimiters, a header-less file whose first address has a typo, a small
// WooCommerce export, CRM headers in other languages, a member list with no address column, code pages,
// text around addresses, --dry-run's layout). Each run is in-process against a real sandbox server, which
// records what it was sent.
import { describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { sandboxForFile, sentItems, type Home } from '../helpers.js';
import { run } from '../fake-io.js';
import type { TestSandbox as Sandbox } from '../sandbox/test-sandbox.js';

let home: Home;
let sb: Sandbox;
let env: Record<string, string>;
sandboxForFile({ quota: 0 }, (made) => ({ home, sb, env } = made));

let n = 0;
const file = async (name: string, content: string | Buffer) => {
  const p = join(home.dir, `${n++}-${name}`);
  await writeFile(p, content);
  return p;
};
/** A run with no cache (each test sees exactly what it sends), and what the sandbox received for it. */
const idv = async (args: string[], input?: string | Buffer) => {
  const before = sentItems(sb).length;
  const r = await run([...args, '-q', '--no-cache'], { env, input });
  return { ...r, sent: sentItems(sb).slice(before) };
};

describe('recipients pasted from a mail client', () => {
  it('a line of recipients is one record per address, in order, each sent as the address alone', async () => {
    const r = await idv(['emails'], 'Jane Doe <jane@gmail.com>, Bob <bob@example.org>, carol@example.com\n');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('email,status\njane@gmail.com,ok\nbob@example.org,ok\ncarol@example.com,ok\n');
    expect(r.exitCode).toBe(0);
    expect(r.sent).toEqual(['jane@gmail.com', 'bob@example.org', 'carol@example.com']);
  });

  it('recipients on the last line of a paste with no line break after it (as printf leaves it): each validated and written', async () => {
    const r = await idv(['emails'], 'ann@example.com\nJane <jane@gmail.com>, bob@example.org');
    expect(r.stdout).toBe('email,status\nann@example.com,ok\njane@gmail.com,ok\nbob@example.org,ok\n');
    expect(r.exitCode).toBe(0);
    expect(r.sent).toEqual(['ann@example.com', 'jane@gmail.com', 'bob@example.org']);
  });

  it('bare addresses separated by ", " on one line are three records, not one', async () => {
    const r = await idv(['emails'], 'ann@example.com, bob@yopmail.com, cy@example.com\n');
    expect(r.stdout).toBe('email,status\nann@example.com,ok\nbob@yopmail.com,disposable\ncy@example.com,ok\n');
    expect(r.exitCode).toBe(0);
  });

  it('Outlook\'s To: line with "Last, First" names unquoted, over two lines: every recipient a record', async () => {
    const r = await idv(['emails'], 'Doe, Jane <jane@x.com>; Ray, Bob <bob@yopmail.com>; King, Carol <carol@z.com>;\r\nLee, Ann <ann@lee.com>; Ng, Cy <cy@ng.org>\r\n');
    expect(r.stdout).toBe('email,status\njane@x.com,ok\nbob@yopmail.com,disposable\ncarol@z.com,ok\nann@lee.com,ok\ncy@ng.org,ok\n');
    expect(r.exitCode).toBe(0);
    expect(r.sent).toEqual(['jane@x.com', 'bob@yopmail.com', 'carol@z.com', 'ann@lee.com', 'cy@ng.org']);
  });

  it('Outlook\'s copy, a ";" after each recipient, loses no line to a header', async () => {
    const r = await idv(['emails'], 'ann@example.com;\r\nBob Ray <bob@yopmail.com>;\r\n"Diaz, Cy" <cy@example.com>;\r\n');
    expect(r.stdout).toBe('email,status\nann@example.com,ok\nbob@yopmail.com,disposable\ncy@example.com,ok\n');
    expect(r.exitCode).toBe(0);
    expect(r.sent).toEqual(['ann@example.com', 'bob@yopmail.com', 'cy@example.com']);
  });
});

describe('Excel without trailing delimiters', () => {
  it('a narrower last row whose address has a typo is a record, not a footer', async () => {
    const f = await file('excel.csv', 'Name,Email,Phone,Notes\r\nAnn,ann@example.com,555,x\r\nBob,bob@example.com,556,\r\nKim,kim.lee@gmail\r\n');
    const r = await idv(['emails', f]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('email,status\nann@example.com,ok\nbob@example.com,ok\nkim.lee@gmail,invalid\n');
    expect(r.exitCode).toBe(0);
    const keep = await idv(['emails', f, '--keep-columns']);
    expect(keep.stdout).toBe('Name,Email,Phone,Notes,status\nAnn,ann@example.com,555,x,ok\nBob,bob@example.com,556,,ok\nKim,kim.lee@gmail,,,invalid\n');
  });
});

describe('a header-less CSV', () => {
  it('whose first row holds a mistyped address keeps that row as a record', async () => {
    const f = await file('no-header.csv', 'Ann Lee,ann.lee@gmail,555-0100\nBob Ray,bob@example.com,555-0101\nCy Diaz,cy@example.org,555-0102\n');
    const r = await idv(['emails', f]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('email,status\nann.lee@gmail,invalid\nbob@example.com,ok\ncy@example.org,ok\n');
    expect(r.exitCode).toBe(0);
  });
});

describe('the item column', () => {
  it('a small WooCommerce export whose user_email has a typo: user_email is validated, not billing_email', async () => {
    const f = await file(
      'woo.csv',
      'customer_id,user_email,first_name,last_name,billing_email,billing_phone\n' +
        '11,felix.braun@gmial,Felix,Braun,felix.braun@gmail.com,\n' +
        '12,gina.russo@libero.it,Gina,Russo,gina.russo@libero.it,\n' +
        '13,hans.vos@kpn.com,Hans,Vos,hans@vos-bv.nl,\n',
    );
    const r = await idv(['emails', f]);
    expect(r.stdout).toBe('email,status\nfelix.braun@gmial,invalid\ngina.russo@libero.it,ok\nhans.vos@kpn.com,ok\n');
    expect(r.sent).toEqual(['gina.russo@libero.it', 'hans.vos@kpn.com']);
  });

  // A CRM export: the staff member who owns each contact first (two owners), then the contact.
  const crm = (owner: string, name: string, email: string) =>
    `${owner},${name},${email}\n` +
    `sato@acme.co.jp,Ann,ann@example.com\nsato@acme.co.jp,Bob,bob@example.org\ntanaka@acme.co.jp,Cy,cy@example.net\n`;
  it.each([
    ['Japanese', crm('担当者', '氏名', 'メールアドレス')],
    ['Chinese', crm('负责人', '姓名', '电子邮件')],
    ['Chinese (traditional)', crm('負責人', '姓名', '電子郵件')],
    ['Korean', crm('담당자', '이름', '이메일')],
    ['Russian', crm('Ответственный', 'Имя', 'Электронная почта')],
    ['Arabic', crm('المسؤول', 'الاسم', 'البريد الإلكتروني')],
    ['Hindi', crm('स्वामी', 'नाम', 'ईमेल')],
    ['Greek', crm('Υπεύθυνος', 'Όνομα', 'Ηλεκτρονικό ταχυδρομείο')],
    ['Turkish', crm('Sorumlu', 'Ad', 'E-posta')],
    ['Polish', crm('Opiekun', 'Imię', 'Adres e-mail')],
  ])('a %s header names the contacts\' column, not the owners\' login before it', async (_lang, text) => {
    const f = await file('crm.csv', text);
    const r = await idv(['emails', f]);
    expect(r.stdout).toBe('email,status\nann@example.com,ok\nbob@example.org,ok\ncy@example.net,ok\n');
    expect(r.exitCode).toBe(0);
  });

  it('a member list with no address column is refused (exit 2), before any request', async () => {
    const f = await file('members.csv', 'Name,Mailing List,Joined\nAnn Lee,Yes,2021\nBob Ray,No,2022\nCy Diaz,Yes,2023\n');
    const r = await idv(['emails', f]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      `idv: ${f}: column 2 ("Mailing List") holds no email addresses (its first rows hold "Yes", "No"); name the column that holds them with --column NAME or --column N.\n`,
    );
    expect(r.stdout).toBe('');
    expect(r.sent).toEqual([]);
  });

  it('--column or --delimiter pointing at a column without addresses is refused (exit 2), before any request', async () => {
    const f = await file('contacts.csv', 'Name,Email\nAnn Lee,ann@example.com\nBob Ray,bob@example.org\n');
    const byNumber = await idv(['emails', f, '--column', '1']);
    expect(byNumber.exitCode).toBe(2);
    expect(byNumber.stderr).toBe(
      `idv: ${f}: column 1 ("Name") holds no email addresses (its first rows hold "Ann Lee", "Bob Ray"); name the column that holds them with --column NAME or --column N.\n`,
    );
    const byDelimiter = await idv(['emails', f, '--delimiter', ';']);
    expect(byDelimiter.exitCode).toBe(2);
    expect(byDelimiter.stderr).toBe(
      `idv: ${f}: column 1 ("Name,Email") holds no email addresses (its first rows hold "Ann Lee,ann@example.com", "Bob Ray,bob@example.org"); split by "," instead of ";", its column 2 ("Email") holds them: give --delimiter ",".\n`,
    );
    expect([...byNumber.sent, ...byDelimiter.sent]).toEqual([]);
  });
});

describe('code pages', () => {
  // A contact list as Excel saves "CSV" on a Windows (or Mac) of each locale: names in the local script.
  const lists: Array<[string, string, string]> = [
    ['windows-1251', 'Russian', 'Имя,Фамилия,Город,Email\nИван,Петров,Москва,ivan@example.ru\nМария,Сидорова,Санкт-Петербург,maria@example.ru\nОльга,Кузнецова,Новосибирск,olga@example.ru\nАлексей,Смирнов,Екатеринбург,alexei@example.ru\n'],
    ['shift_jis', 'Japanese', '氏名,フリガナ,会社,メールアドレス\n山田太郎,ヤマダタロウ,株式会社山田,taro@example.jp\n佐藤花子,サトウハナコ,佐藤商事,hanako@example.jp\n鈴木一郎,スズキイチロウ,鈴木工業,ichiro@example.jp\n'],
    ['gbk', 'Chinese', '姓名,公司,城市,电子邮件\n张伟,北京科技有限公司,北京,zhangwei@example.cn\n李娜,上海贸易公司,上海,lina@example.cn\n王芳,广州电子,广州,wangfang@example.cn\n'],
    ['windows-1253', 'Greek', 'Όνομα,Επώνυμο,Πόλη,Email\nΓιώργος,Παπαδόπουλος,Αθήνα,giorgos@example.gr\nΜαρία,Νικολάου,Θεσσαλονίκη,maria@example.gr\nΔημήτρης,Γεωργίου,Πάτρα,dimitris@example.gr\n'],
    ['windows-1254', 'Turkish', 'Ad,Soyad,Şehir,E-posta\nAyşe,Yılmaz,İstanbul,ayse@example.com.tr\nMehmet,Öztürk,Ankara,mehmet@example.com.tr\nÇağla,Güneş,İzmir,cagla@example.com.tr\nEmre,Şahin,Eskişehir,emre@example.com.tr\n'],
    ['windows-1250', 'Czech and Polish', 'Jméno,Příjmení,Město,E-mail\nJiří,Dvořák,Brno,jiri@example.cz\nŽofie,Šťastná,Plzeň,zofie@example.cz\nŁukasz,Wójcik,Kraków,lukasz@example.pl\nTomáš,Novák,Ostrava,tomas@example.cz\n'],
  ];
  it.each(lists)('%s (%s): --keep-columns writes every name as it was, in UTF-8', async (encoding, _lang, text) => {
    const f = await file(`${encoding}.csv`, iconv.encode(text.replace(/\n/g, '\r\n'), encoding));
    const r = await idv(['emails', f, '--keep-columns']);
    expect(r.stdout).toBe(text.replace(/\n/g, (_m, at: number) => (at === text.indexOf('\n') ? ',status\n' : ',ok\n')));
    expect(r.exitCode).toBe(0);
  });

  it('an address whose ë is cut by the 64 KiB blocks a file is read in is sent and written as zoë, not zoÃ«', async () => {
    // ASCII addresses, then zoë@example.com with the first byte of ë the last byte of the first block.
    const before: string[] = [];
    let size = 0;
    for (let i = 0; size + 40 < 64 * 1024 - 3; i++) {
      before.push(`user${i}@example.com`);
      size += before.at(-1)!.length + 1;
    }
    before.push(`${'p'.repeat(64 * 1024 - 3 - size - 13)}@example.com`);
    const text = before.join('\n') + '\nzoë@example.com\n';
    expect(Buffer.from(text).subarray(64 * 1024 - 3, 64 * 1024 + 1).toString()).toBe('zoë');
    const r = await idv(['emails', await file('cut.txt', text)]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n').slice(-2)).toEqual(['zoë@example.com,ok', '']);
    expect(r.sent.at(-1)).toBe('zoë@example.com');
  });

  it('a UTF-8 file with one stray byte after 3,000 rows stays UTF-8 to its end, and the byte is named by its line', async () => {
    const rows = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `Jürgen ${from + i},k${from + i}@bücher.de\n`).join('');
    const bytes = Buffer.concat([Buffer.from('Name,Email\n' + rows(0, 3000)), Buffer.from('Ren\xe9e,renee@example.com\n', 'latin1'), Buffer.from(rows(3000, 3010))]);
    const f = await file('stray.csv', bytes);
    const r = await idv(['emails', f]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe(
      `idv: note: ${f}: line 3,002 holds a byte that is not UTF-8 (0xE9), read as the Windows-1252 character "é"; the rest of the file is UTF-8. Check that line, or give --encoding NAME if the file is in another encoding.\n`,
    );
    const lines = r.stdout.split('\n');
    expect(lines[1]).toBe('k0@bücher.de,ok');
    expect(lines[3001]).toBe('renee@example.com,ok');
    expect(lines[3002]).toBe('k3000@bücher.de,ok');
    expect(r.sent).toContain('k3009@bücher.de');
    expect(r.sent.filter((s) => s.includes('Ã'))).toEqual([]);
  });
});

describe('bytes no code page has a character for', () => {
  it('a stray 0x81 or 0x9D in a UTF-8 file is a control character, never U+FFFD: the item holding one is invalid and never sent, the note escapes them', async () => {
    const f = await file('u.csv', Buffer.from('Name,Email\nRen\xc3\xa9e,renee@example.com\nJos\xc3\xa9,jose@example.com\nZo\xc3\xab,zoe@example.com\nBad,b\x81d@example.com\nM\x9dx,mx@example.com\n', 'latin1'));
    const r = await idv(['emails', f, '--keep-columns']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe(
      `idv: note: ${f}: lines 5–6 hold 2 bytes that are not UTF-8 (0x81, 0x9D), read as the Windows-1252 characters "\\x81", "\\x9d"; the rest of the file is UTF-8. Check those lines, or give --encoding NAME if the file is in another encoding.\n`,
    );
    expect(r.stdout).toBe('Name,Email,status\nRenée,renee@example.com,ok\nJosé,jose@example.com,ok\nZoë,zoe@example.com,ok\nBad,b\x81d@example.com,invalid\nM\x9dx,mx@example.com,ok\n');
    expect(r.sent).toEqual(['renee@example.com', 'jose@example.com', 'zoe@example.com', 'mx@example.com']);
  });
  it('a Shift_JIS export with a cell cut inside a character is read as Shift_JIS: SUB (U+001A) in that cell, every other cell as written', async () => {
    const bytes = Buffer.concat([iconv.encode('氏名,メールアドレス\r\n山田太郎,yamada@example.jp\r\n鈴木花子,suzuki@example.jp\r\n', 'shift_jis'), Buffer.from([0x8e, 0x52, 0x82]), Buffer.from(',broken@example.jp\r\n')]);
    const r = await idv(['emails', await file('cut.csv', bytes), '--keep-columns']);
    expect(r.stdout).toBe('氏名,メールアドレス,status\n山田太郎,yamada@example.jp,ok\n鈴木花子,suzuki@example.jp,ok\n山\x1a,broken@example.jp,ok\n');
    expect(r.exitCode).toBe(0);
  });
  it('--encoding shift_jis on a cell cut inside a character: SUB (U+001A) in that cell, never U+FFFD', async () => {
    const bytes = Buffer.concat([iconv.encode('氏名,メールアドレス\r\n山田太郎,yamada@example.jp\r\n', 'shift_jis'), Buffer.from([0x8e, 0x52, 0x82]), Buffer.from(',broken@example.jp\r\n')]);
    const r = await idv(['emails', await file('s.csv', bytes), '--encoding', 'shift_jis', '--keep-columns']);
    expect(r.stdout).toBe('氏名,メールアドレス,status\n山田太郎,yamada@example.jp,ok\n山\x1a,broken@example.jp,ok\n');
    expect(r.sent).toEqual(['yamada@example.jp', 'broken@example.jp']);
  });
});

describe('text around an address', () => {
  it('mailto:, zero-width spaces and direction marks are never sent, and an address is one item however it was copied', async () => {
    const r = await idv(['emails'], 'mailto:ann@example.com?subject=Hello\ned@example.com\u200b\n\u200eed@example.com\ned@example.com\n\ufeffcy@example.com\u202c\n');
    expect(r.stdout).toBe('email,status\nann@example.com,ok\ned@example.com,ok\ned@example.com,ok\ned@example.com,ok\ncy@example.com,ok\n');
    expect(r.sent).toEqual(['ann@example.com', 'ed@example.com', 'cy@example.com']);
    // The cache keeps one result for them: a rerun sends nothing.
    const first = await run(['emails', '-q'], { env, input: 'ed@example.com\u200b\n' });
    const before = sentItems(sb).length;
    const again = await run(['emails', '-q'], { env, input: 'ed@example.com\n' });
    expect([first.stdout, again.stdout]).toEqual(['email,status\ned@example.com,ok\n', 'email,status\ned@example.com,ok\n']);
    expect(sentItems(sb).length).toBe(before);
  });

  it('a vCard file gives its addresses, the EMAIL property\'s name never sent', async () => {
    const vcf = 'BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Jane Doe\r\nN:Doe;Jane;;;\r\nEMAIL;type=INTERNET;type=WORK:jane@example.com\r\nTEL;type=CELL:+1 555 0100\r\nEND:VCARD\r\nBEGIN:VCARD\r\nVERSION:3.0\r\nFN:Bob Ray\r\nitem1.EMAIL;type=INTERNET:bob@yopmail.com\r\nEND:VCARD\r\n';
    const f = await file('contacts.vcf', vcf);
    const r = await idv(['emails', f]);
    expect(r.stdout).toBe('email,status\njane@example.com,ok\nbob@yopmail.com,disposable\n');
    expect(r.sent).toEqual(['jane@example.com', 'bob@yopmail.com']);
    expect(r.exitCode).toBe(0);
  });

  it('a folded EMAIL line (macOS Contacts wraps at 75 octets, the rest on a line starting with a space) is one address', async () => {
    const vcf = 'BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Jon Smithson\r\nitem1.EMAIL;type=INTERNET;type=pref:jonathan.alexander.smithson@i\r\n nternationalconsulting.com\r\nEMAIL:bo@x.com\r\nEND:VCARD\r\n';
    const r = await idv(['emails', await file('long.vcf', vcf)]);
    expect(r.stdout).toBe('email,status\njonathan.alexander.smithson@internationalconsulting.com,ok\nbo@x.com,ok\n');
    expect(r.sent).toEqual(['jonathan.alexander.smithson@internationalconsulting.com', 'bo@x.com']);
    expect(r.exitCode).toBe(0);
  });
});

describe('--dry-run', () => {
  it('shows, per file, the encoding, delimiter, header, item column and runner-up, and what it skipped', async () => {
    const f = await file('export.csv', 'Table 1\nName,Email,Work Email\nAnn,ann@example.com,ann@acme.com\nBob,bob@example.org,\nCy,cy@example.net,cy@acme.com\n');
    const before = sentItems(sb).length;
    const json = await run(['emails', f, '--dry-run', '-f', 'json', '--no-cache'], { env }); // not -q: the layout is for a person
    expect(json.exitCode).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ records: 3, unique: 3, invalid: 0, cached: 0, quota: 3 });
    expect(json.stderr).toBe(
      `idv: note: ${f}: skipped line 1 above the header (not a record): "Table 1"\n` +
        `idv: note: ${f}: took the column "Email" (3 distinct addresses in the first rows; "Work Email" has 2); pick another with --column NAME.\n` +
        `${f}\n` +
        '  encoding   utf-8\n' +
        '  delimiter  ","\n' +
        '  header     line 2: "Name" "Email" "Work Email"\n' +
        '  column     2 "Email"; runner-up 3 "Work Email"\n' +
        '  records    3\n' +
        '  skipped    line 1 (above the header)\n',
    );
    expect(await run(['emails', f, '--dry-run', '-f', 'json', '-q', '--no-cache'], { env })).toMatchObject({ stdout: json.stdout, stderr: json.stderr.replace(/^(?!idv: note:).*\n/gm, '') });
    expect(sentItems(sb).length).toBe(before);
  });
});

describe('what was skipped, and how the input was read, said', () => {
  it('the summary and --report count the lines skipped (the header apart)', async () => {
    const f = await file('report.csv', 'Table 1\nName,Email\nAnn,ann@example.com\nBob,bob@example.org\n\nGrand Totals (2 records)\n');
    const report = join(home.dir, `${n++}-run.json`);
    const r = await run(['emails', f, '--no-cache', '--report', report], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^idv: note: ${f}: skipped line 1 above the header \\(not a record\\): "Table 1"\\nidv: note: ${f}: skipped line 6 below the data \\(not a record\\): "Grand Totals \\(2 records\\)"\\n2 records \\(2 lines skipped\\) in \\d+\\.\\d s\\n`));
    const json = JSON.parse(await readFile(report, 'utf8')) as { records: number; skipped: number };
    expect([json.records, json.skipped]).toEqual([2, 2]);
  });

  it('--verbose names the encoding and the layout; --encoding overrides detection', async () => {
    const text = 'Имя,Email\r\nИван,ivan@example.ru\r\nМария,maria@example.ru\r\nОльга,olga@example.ru\r\n';
    const f = await file('ru.csv', iconv.encode(text, 'koi8-r'));
    const v = await idv(['emails', f, '--verbose', '--keep-columns', '--encoding', 'koi8-r']);
    expect(v.stdout).toBe('Имя,Email,status\nИван,ivan@example.ru,ok\nМария,maria@example.ru,ok\nОльга,olga@example.ru,ok\n');
    expect(v.stderr.split('\n')[0]).toBe(`idv: ${f}: encoding koi8-r (as --encoding says), delimiter ",", header on line 1, item column 2 ("Email").`);
    const wrong = await idv(['emails', f, '--keep-columns', '--encoding', 'windows-1251']);
    expect(wrong.stdout.split('\n')[1]).not.toBe('Иван,ivan@example.ru,ok');
    const unknown = await idv(['emails', f, '--encoding', 'ebcdic-klingon']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toBe('idv: --encoding: "ebcdic-klingon" is no encoding idv knows; give one like utf-8, windows-1252, windows-1251, shift_jis, gb18030, big5, euc-kr or macintosh.\n');
  });

  it('idv domains: a first line that is a header of either kind is a header', async () => {
    for (const header of ['email', 'E-mail Address', 'domain', 'Website']) {
      const r = await idv(['domains'], `${header}\na@gmail.com\nglobex.com\n`);
      expect(r.stdout, header).toBe('domain,status\ngmail.com,ok\nglobex.com,ok\n');
    }
  });

  it('--dry-run on a terminal shows the layout as aligned lines', async () => {
    const f = await file('t.csv', 'Name,Email\nAnn,ann@example.com\n');
    const r = await run(['emails', f, '--dry-run', '--no-cache'], { env, stdoutIsTTY: true });
    expect(r.stdout).toBe(
      `records  1\nunique   1\ninvalid  0\ncached   0\nquota    1\n\n${f}\n  encoding   utf-8\n  delimiter  ","\n  header     line 1: "Name" "Email"\n  column     2 "Email"\n  records    1\n`,
    );
  });
});
