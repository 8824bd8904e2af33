// Exports in shapes the fixture corpus does not hold, tried as a hostile tester would: line endings mixed in one
// file, rows wider than the sample, a header without the trailing delimiter of its rows, several files, two
// columns of one name, one-column lists, hosts that cannot be.
import { describe, expect, it } from 'vitest';
import { homeForEachTest } from '../helpers.js';
import { run } from '../fake-io.js';

const home = homeForEachTest();
const file = home.file;

describe('line endings', () => {
  it('a CSV whose lines end in LF, CRLF and a lone CR (files joined from several sources) keeps every record apart', async () => {
    const f = await file('mixed.csv', 'Name,Email,Note\nAnn,ann@x.com,\r\nBob,bob@x.com,\rCy,cy@fake.com,\nDee,"dee@x.com",\r\nEd,ed@x.com,"a\r\nnote"');
    const r = await run(['emails', f, '--sandbox', '-q', '--keep-columns']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('Name,Email,Note,status\nAnn,ann@x.com,,ok\nBob,bob@x.com,,ok\nCy,cy@fake.com,,fake\nDee,dee@x.com,,ok\nEd,ed@x.com,"a\r\nnote",ok\n');
  });
});

describe('sample', () => {
  it('rows wider than the 64 KiB sample (an export with thousands of custom fields) are still read as CSV', async () => {
    const fields = Array.from({ length: 4000 }, (_, i) => `Custom field ${i}`);
    const row = (email: string) => ['Ann', email, ...fields.map((_, i) => `value ${i}`)].join(',');
    const f = await file('wide.csv', [['Name', 'Email', ...fields].join(','), row('ann@x.com'), row('bob@fake.com'), row('')].join('\r\n') + '\r\n');
    const r = await run(['emails', f, '--sandbox', '-q']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('email,status\nann@x.com,ok\nbob@fake.com,fake\n,invalid\n');
    const keep = await run(['emails', f, '--sandbox', '-q', '--keep-columns']);
    const values = fields.map((_, i) => `value ${i}`).join(',');
    expect(keep.stdout).toBe(
      `Name,Email,${fields.join(',')},status\nAnn,ann@x.com,${values},ok\nAnn,bob@fake.com,${values},fake\nAnn,,${values},invalid\n`,
    );
  });
});

describe('header', () => {
  it('rows that end in a delimiter under a header that does not: the header stays the header, not a skipped preamble', async () => {
    const f = await file('trailing.csv', 'Name,Email,Phone\nAnn,ann@x.com,555,\nBob,bob@fake.com,,\nCy,,556,\n');
    const r = await run(['emails', f, '--sandbox', '-q', '--keep-columns']);
    expect(r.stderr).toBe(''); // no note: nothing skipped
    expect(r.stdout).toBe('Name,Email,Phone,,status\nAnn,ann@x.com,555,,ok\nBob,bob@fake.com,,,fake\nCy,,556,,invalid\n');
    const json = await run(['emails', f, '--sandbox', '-q', '--keep-columns', '-f', 'ndjson']);
    expect(json.stdout.split('\n')[0]).toBe('{"Name":"Ann","Email":"ann@x.com","Phone":"555","column4":"","status":"ok"}');
  });
});

describe('several files', () => {
  it('a later file idv cannot read is refused before anything is sent, not after paying for the files before it', async () => {
    const { sandbox, sentItems } = await import('../helpers.js');
    const { sb, env } = await sandbox({ quota: 0 }, home);
    try {
      // Large enough that whole batches of it go out while it is read.
      const many = Array.from({ length: 1000 }, (_, i) => `N${i},n${i}@x.com\n`).join('');
      const good = await file('good.csv', 'Name,Email\n' + many);
      const ragged = await file('ragged.csv', 'Name,Email,Phone\nCy,cy@x.com,1,2\nDee,dee@x.com\nEd;ed@x.com\nFay,fay@x.com,3,4,5\n');
      const noItems = await file('numbers.csv', 'a,b\n1,2\n3,4\n');
      for (const [bad, message] of [
        [ragged, `idv: ${ragged} looks like CSV split by ",", but its rows have different numbers of cells (3, 4, 2, 1, 5…); give --delimiter "," to read it so anyway (every cell is kept), or check the file.\n`],
        [noItems, `idv: No column of ${noItems} looks like email addresses; name it with --column NAME or --column N.\n`],
      ]) {
        const r = await run(['emails', good, bad!, '-q'], { env });
        expect(r.exitCode).toBe(2);
        expect(r.stderr).toBe(message);
        expect(r.stdout).toBe('');
      }
      expect(sentItems(sb)).toEqual([]);
      // Read in turn once all are known good: notes come as each file is reached, once.
      const table = await file('table.csv', 'Table 1\nName,Email\nGil,gil@x.com\n');
      const ok = await run(['emails', good, table, '-q'], { env });
      expect(ok.stderr).toBe(`idv: note: ${table}: skipped line 1 above the header (not a record): "Table 1"\n`);
      expect(ok.stdout).toBe('email,status\n' + many.replace(/N\d+,(.*)\n/g, '$1,ok\n') + 'gil@x.com,ok\n');
    } finally {
      await sb.close();
    }
  });
});

describe('column choice', () => {
  it('two columns of the same name: the note names the other by its number, since --column NAME can only give the first', async () => {
    const f = await file('twice.csv', 'Email,Name,email\nann@x.com,Ann,ann@home.com\nbob@x.com,Bob,bob@home.com\ncy@x.com,Cy,\n');
    const r = await run(['emails', f, '--sandbox', '-q']);
    expect(r.stderr).toBe(
      `idv: note: ${f}: took the column "Email" (3 distinct addresses in the first rows; column 3, also "email", has 2); pick another with --column 3.\n`,
    );
    expect(r.stdout).toBe('email,status\nann@x.com,ok\nbob@x.com,ok\ncy@x.com,ok\n');
    // What the note says works.
    expect((await run(['emails', f, '--sandbox', '-q', '--column', '3'])).stdout).toBe('email,status\nann@home.com,ok\nbob@home.com,ok\n,invalid\n');
  });
});

describe('one-column lists', () => {
  it('--keep-columns keeps a one-column list\'s header as written and each line as read', async () => {
    const f = await file('list.csv', 'E-mail Address\r\n ann@x.com \r\nbob@fake.com\r\nnot an address\r\n');
    const csv = await run(['emails', f, '--sandbox', '-q', '--keep-columns']);
    expect(csv.stdout).toBe('E-mail Address,status\n ann@x.com ,ok\nbob@fake.com,fake\nnot an address,invalid\n');
    const json = await run(['emails', f, '--sandbox', '-q', '--keep-columns', '-f', 'ndjson']);
    expect(json.stdout).toBe('{"E-mail Address":" ann@x.com ","status":"ok"}\n{"E-mail Address":"bob@fake.com","status":"fake"}\n{"E-mail Address":"not an address","status":"invalid"}\n');
    // Without --keep-columns: idv's own field names, items trimmed.
    expect((await run(['emails', f, '--sandbox', '-q'])).stdout).toBe('email,status\nann@x.com,ok\nbob@fake.com,fake\nnot an address,invalid\n');
    // The same list quoted (read as a one-column CSV) gives the same output.
    const quoted = await file('quoted.csv', '"E-mail Address"\r\n" ann@x.com "\r\n"bob@fake.com"\r\n"not an address"\r\n');
    expect((await run(['emails', quoted, '--sandbox', '-q', '--keep-columns'])).stdout).toBe(csv.stdout);
    // A list without a header gets idv's: status needs a name above it.
    const bare = await file('bare.txt', ' ann@x.com \nbob@fake.com\n');
    expect((await run(['emails', bare, '--sandbox', '-q', '--keep-columns'])).stdout).toBe('email,status\n ann@x.com ,ok\nbob@fake.com,fake\n');
  });
});

describe('idv domains', () => {
  it('a host with a label that starts or ends with a hyphen, or is longer than 63 characters, is invalid and never sent', async () => {
    const { sandbox, sentItems } = await import('../helpers.js');
    const { sb, env } = await sandbox({ quota: 0 }, home);
    try {
      const long = 'a'.repeat(64);
      const f = await file('hosts.txt', ['-example.com', 'example-.com', 'https://www.-shop.com/', `${long}.com`, 'my-site.com', 'xn--bcher-kva.de', `${long.slice(1)}.com`, 'jane@-mail.com'].join('\n') + '\n');
      const r = await run(['domains', f, '-q'], { env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(
        `domain,status\n-example.com,invalid\nexample-.com,invalid\nhttps://www.-shop.com/,invalid\n${long}.com,invalid\nmy-site.com,ok\nxn--bcher-kva.de,ok\n${long.slice(1)}.com,ok\njane@-mail.com,invalid\n`,
      );
      expect(sentItems(sb)).toEqual(['my-site.com', 'xn--bcher-kva.de', `${long.slice(1)}.com`]);
      const emails = await file('emails.txt', 'jane@-mail.com\njane@mail-.com\njane@my-mail.com\n');
      expect((await run(['emails', emails, '--sandbox', '-q'])).stdout).toBe('email,status\njane@-mail.com,invalid\njane@mail-.com,invalid\njane@my-mail.com,ok\n');
    } finally {
      await sb.close();
    }
  });
});

