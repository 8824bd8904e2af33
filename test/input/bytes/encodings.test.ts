// Which code page a text that is not UTF-8 is in (src/input/bytes/encodings.ts), and the names --encoding takes.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import iconv from 'iconv-lite';
import { readFileSync } from 'node:fs';
import { detectCodePage, encodingFlag } from '../../../src/input/bytes/encodings.js';
import { fixture } from '../../helpers.js';

/** A small export as Excel writes it on a Windows (or a Mac) of each locale: names among addresses. */
const exports: Array<[string, string]> = [
  ['windows-1252', 'Prénom,Nom,Ville,Email\nRenée,Lefèvre,Besançon,a@x.fr\nJürgen,Müller,München,b@x.de\nJosé,Núñez,Málaga,c@x.es\nSøren,Ørsted,Århus,d@x.dk\n'],
  ['windows-1251', 'Имя,Фамилия,Город,Email\nИван,Петров,Москва,a@x.ru\nМария,Сидорова,Казань,b@x.ru\nОльга,Кузнецова,Самара,c@x.ru\n'],
  ['windows-1250', 'Jméno,Příjmení,Město,E-mail\nJiří,Dvořák,Brno,a@x.cz\nŁukasz,Wójcik,Kraków,b@x.pl\nŽofie,Šťastná,Plzeň,c@x.cz\n'],
  ['windows-1253', 'Όνομα,Επώνυμο,Πόλη,Email\nΓιώργος,Παπαδόπουλος,Αθήνα,a@x.gr\nΜαρία,Νικολάου,Πάτρα,b@x.gr\n'],
  ['windows-1254', 'Ad,Soyad,Şehir,E-posta\nAyşe,Yılmaz,İstanbul,a@x.tr\nÇağla,Güneş,İzmir,b@x.tr\nEmre,Şahin,Eskişehir,c@x.tr\n'],
  ['windows-1255', 'שם,משפחה,עיר,דוא"ל\nדוד,כהן,תל אביב,a@x.il\nשרה,לוי,ירושלים,b@x.il\nמשה,מזרחי,חיפה,c@x.il\n'],
  ['windows-1256', 'الاسم,العائلة,المدينة,البريد\nمحمد,أحمد,القاهرة,a@x.eg\nفاطمة,علي,الرياض,b@x.sa\n'],
  ['windows-1257', 'Vārds,Uzvārds,Pilsēta,E-pasts\nJānis,Bērziņš,Rīga,a@x.lv\nRūta,Kalniņa,Liepāja,b@x.lv\n'],
  ['windows-874', 'ชื่อ,นามสกุล,เมือง,อีเมล\nสมชาย,ใจดี,กรุงเทพ,a@x.th\nสมหญิง,รักไทย,เชียงใหม่,b@x.th\n'],
  ['shift_jis', '氏名,フリガナ,会社,メールアドレス\n山田太郎,ヤマダタロウ,株式会社山田,a@x.jp\n佐藤花子,サトウハナコ,佐藤商事,b@x.jp\n'],
  ['gb18030', '姓名,公司,城市,电子邮件\n张伟,北京科技有限公司,北京,a@x.cn\n李娜,上海贸易公司,上海,b@x.cn\n'],
  ['big5', '姓名,公司,城市,電子郵件\n陳大文,台北科技有限公司,台北,a@x.tw\n林美玲,高雄貿易公司,高雄,b@x.tw\n'],
  ['euc-kr', '이름,회사,도시,이메일\n김민준,서울전자,서울,a@x.kr\n이서연,부산무역,부산,b@x.kr\n'],
  ['koi8-r', 'Имя,Фамилия,Город,Почта\nИван,Петров,Москва,a@x.ru\nМария,Сидорова,Казань,b@x.ru\nОльга,Кузнецова,Самара,c@x.ru\n'],
  // Windows-1252 with signs at words' ends and dashes between words: never taken for a DOS code page.
  ['windows-1252', 'Name,Email\nAcme\u2122 GmbH,info@acme.de\nZo\u00eb M\u00fcller,zoe@m\u00fcller.de\n'],
  ['windows-1252', 'Company,Name,Dept,Email\nWidgets\u00ae Inc,In\u00eas Gon\u00e7alves,Sales\u2013EMEA,ines@w.pt\nAcme,Ren\u00e9e Dubois,Sales\u2013EMEA,renee@a.fr\nB,Jos\u00e9 P\u00e9rez,Ops,jose@b.es\n'],
  // DOS code pages (Excel's "CSV (MS-DOS)", Outlook's "(DOS)"): jschardet knows none, the readings it offers show controls or symbols.
  ['cp850', 'Name,Email\nFrançois Lefèvre,francois@example.fr\nJosé Núñez,jose@café.es\nÅsa Öberg,asa@example.se\n'],
  ['cp437', 'Name,Email\nJürgen Müller,jürgen@bücher.de\nZoë,zoe@example.com\n'],
];

describe('detectCodePage', () => {
  it.each(exports)('%s', async (encoding, text) => {
    const bytes = iconv.encode(text.replace(/\n/g, '\r\n'), encoding);
    const found = await detectCodePage(bytes);
    expect(iconv.decode(bytes, found.iconv)).toBe(text.replace(/\n/g, '\r\n'));
  });

  it('lines of addresses and numbers around a few names do not drown them', async () => {
    const names = 'Иван,Петров\nМария,Сидорова\nОльга,Кузнецова\n';
    const ascii = Array.from({ length: 2000 }, (_, i) => `user${i},x${i}@example.com,${i}`).join('\n');
    expect((await detectCodePage(iconv.encode(ascii + '\n' + names, 'windows-1251'))).label).toBe('windows-1251');
  });

  it.each([
    ['macintosh', 'Name,Email\rRenée Lefèvre,a@x.com\rZoë Café,b@x.com\rJürgen Müller,c@x.com\r'],
    ['x-mac-cyrillic', 'Имя,Email\rИван Петров,a@x.ru\rМария Сидорова,b@x.ru\rОльга Кузнецова,c@x.ru\r'],
  ])('lines ended by a lone CR: Excel for Mac, in its Mac code page (%s)', async (label, text) => {
    const found = await detectCodePage(iconv.encode(text, label === 'macintosh' ? 'macintosh' : 'maccyrillic'));
    expect(found.label).toBe(label);
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
  ])('Mac Roman with %s line ends (Excel for Mac CSV converted, FileMaker) is read as Mac Roman, not as a DOS or ISO code page', async (_, eol) => {
    for (const text of ['Company,Website\nBücher GmbH,bücher.de\nCafé Paris,café.fr\n', 'Name,Email\nFrançoise Lefèvre,f@example.com\nZoë Ådams,z@example.com\n']) {
      const found = await detectCodePage(iconv.encode(text.replace(/\n/g, eol), 'macintosh'));
      expect(found).toEqual({ label: 'macintosh', iconv: 'macintosh', alternative: null });
    }
  });

  it('any Mac Roman export, with any line ends, decodes back to itself, or a note says the code page is not certain (property)', async () => {
    const names = ['Renée', 'Lefèvre', 'Françoise', 'Zoë', 'Ådams', 'Müller', 'Jürgen', 'Björk', 'Søren', 'Ørsted', 'José', 'Núñez', 'Ângela', 'Gonçalves', 'Bücher', 'Café', 'Dubé', 'Groß', 'Hélène', 'Noël'];
    const plain = ['Tom', 'Baker', 'Ann', 'Lee', 'Kim', 'Park', 'Acme', 'GmbH'];
    let ambiguous = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.array(fc.tuple(fc.constantFrom(...names), fc.constantFrom(...names, ...plain)), { minLength: 1, maxLength: 6 }),
        fc.array(fc.tuple(fc.constantFrom(...plain), fc.constantFrom(...plain)), { maxLength: 6 }),
        async (eol, accented, ascii) => {
          const rows = [...accented, ...ascii].map(([a, b], i) => `${a} ${b},p${i}@example.com`);
          const text = ['Name,Email', ...rows].join(eol) + eol;
          const bytes = iconv.encode(text, 'macintosh');
          const found = await detectCodePage(bytes);
          // A lone letter that other code pages read as a letter too (Ø, 0xAF, is Baltic Æ, Polish Ż): a note says so, naming --encoding.
          if (found.alternative === null) expect(iconv.decode(bytes, found.iconv)).toBe(text);
          else ambiguous++;
        },
      ),
      { seed: 35, numRuns: 300 },
    );
    expect(ambiguous).toBeLessThan(30); // most exports hold letters that tell
  });

  it.each([
    ['windows-1252', 'Name,Email\r\nAnn\u00a0Lee,ann@example.com\r\n'], // a no-break space pasted from the web: no symbol, not DOS `á`
    ['windows-1250', 'Name,Email\r\nŞtefan Ţurcanu,s@example.ro\r\n'], // Romanian: not Windows-1254 `ªtefan`
    ['gb18030', 'Name,Email\r\n王 芳,person@example.com\r\n'], // a Chinese name written with a space: not Windows-1252 `Íõ ·¼`
  ])('one short name in %s comes out as written', async (encoding, text) => {
    const bytes = iconv.encode(text, encoding);
    expect(iconv.decode(bytes, (await detectCodePage(bytes)).iconv)).toBe(text);
  });

  it('a Windows-1252 name with no-break spaces, or a Romanian one in Windows-1250, decodes back to itself (property)', async () => {
    const pages = [
      { encoding: 'windows-1252', parts: ['Ann', 'Lee', 'Renée', 'Müller', 'José', 'Acme', 'GmbH'], space: ['\u00a0', ' '] },
      { encoding: 'windows-1250', parts: ['Ştefan', 'Ţurcanu', 'Mihăilă', 'Ţiriac', 'Şerban', 'Ion', 'Popa'], space: [' '] },
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...pages),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { minLength: 1, maxLength: 4 }),
        async ({ encoding, parts, space }, picks) => {
          const rows = picks.map(([a, b, c], i) => `${parts[a % parts.length]}${space[c % space.length]}${parts[b % parts.length]},p${i}@example.com`);
          const text = ['Name,Email', ...rows].join('\r\n') + '\r\n';
          if (!/[^\x00-\x7f]/.test(text)) return;
          const bytes = iconv.encode(text, encoding);
          const found = await detectCodePage(bytes);
          if (found.alternative === null) expect(iconv.decode(bytes, found.iconv)).toBe(text);
        },
      ),
      { seed: 40, numRuns: 200 },
    );
  });

  it('a Shift_JIS or GBK export with a cell cut inside a character (fields cut at a byte count) is still read in its code page (property)', async () => {
    const pages = [
      { encoding: 'shift_jis', names: ['山田太郎', '佐藤花子', '鈴木一郎', '高橋美咲', 'ヤマダタロウ', '株式会社山田'], header: '氏名,メールアドレス' },
      { encoding: 'gb18030', names: ['王芳', '李娜', '张伟', '刘洋', '北京科技有限公司', '陈静'], header: '姓名,电子邮件' },
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...pages), fc.array(fc.nat(), { minLength: 2, maxLength: 6 }), fc.nat(), async ({ encoding, names, header }, picks, cutAt) => {
        const rows = picks.map((n, i) => ({ name: names[n % names.length]!, email: `p${i}@example.jp` }));
        const cut = rows[cutAt % rows.length]!;
        const whole = (r: { name: string; email: string }) => iconv.encode(`${r.name},${r.email}\r\n`, encoding);
        // The cut row: its name's bytes less the last one, a lead byte left alone before the comma.
        const cutBytes = Buffer.concat([iconv.encode(cut.name, encoding).subarray(0, -1), Buffer.from(`,${cut.email}\r\n`)]);
        const bytes = Buffer.concat([iconv.encode(`${header}\r\n`, encoding), ...rows.map((r) => (r === cut ? cutBytes : whole(r)))]);
        const found = await detectCodePage(bytes);
        expect(found.iconv).toBe(encoding);
      }),
      { seed: 41, numRuns: 100 },
    );
  });

  it('says when another code page reads the text almost as likely, and otherwise', async () => {
    // Eight lines of Western names (Outlook's export): Windows-1250 reads them alike but for ø and ñ.
    const few = await detectCodePage(readFileSync(fixture('exports/outlook-contacts.csv')));
    expect(few).toEqual({ label: 'windows-1252', iconv: 'windows-1252', alternative: 'windows-1250' });
    const sure = await detectCodePage(iconv.encode(exports[1]![1], 'windows-1251'));
    expect(sure.alternative).toBeNull();
  });
});

describe('--encoding NAME', () => {
  it.each([
    ['utf-8', 'utf-8', 'utf-8'],
    ['UTF8', 'utf-8', 'utf-8'],
    ['cp1251', 'windows-1251', 'windows-1251'],
    ['Windows-1252', 'windows-1252', 'windows-1252'],
    ['shift_jis', 'shift_jis', 'shift_jis'],
    ['macintosh', 'macintosh', 'macintosh'],
    ['x-mac-cyrillic', 'x-mac-cyrillic', 'maccyrillic'],
    ['latin1', 'latin1', 'latin1'],
    ['ISO-8859-5', 'iso-8859-5', 'iso-8859-5'],
  ])('%s → shown as %s, read as iconv-lite\'s %s', async (given, label, name) => {
    expect(await encodingFlag(given)).toEqual({ label, iconv: name });
  });
  it('a name no library knows is a usage error', async () => {
    await expect(encodingFlag('klingon')).rejects.toMatchObject({
      kind: 'usage',
      message: '--encoding: "klingon" is no encoding idv knows; give one like utf-8, windows-1252, windows-1251, shift_jis, gb18030, big5, euc-kr or macintosh.',
    });
  });
});
