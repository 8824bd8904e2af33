// The library's entry (src/index.ts, `import ... from 'idv'`): exactly its public names at run time, each the
// library's: emails to /emails/validate, domains to /domains/validate, records read as the CLI reads them, a sandbox.
// (What each does is test/library/'s.)
import { describe, expect, it } from 'vitest';
import * as idv from '../src/index.js';
import { homeForEachTest } from './helpers.js';

const home = homeForEachTest();

describe("import from 'idv'", () => {
  it('gives validateEmails, validateDomains, readRecords, startSandbox and IdvError, and nothing else', () => {
    expect(Object.keys(idv).sort()).toEqual(['IdvError', 'readRecords', 'startSandbox', 'validateDomains', 'validateEmails']);
    expect(new idv.IdvError('usage', 'x')).toBeInstanceOf(Error);
  });

  it('each function is the one its name says, on a sandbox it started', async () => {
    const sandbox = await idv.startSandbox({ quota: 10 });
    try {
      const options = { baseUrl: sandbox.url, apiKey: sandbox.apiKey, cache: false, env: home.env };
      const emails = [];
      for await (const r of idv.validateEmails(['ann@example.com', 'bob@mailinator.com'], options)) emails.push(`${r.item}=${r.status}`);
      expect(emails).toEqual(['ann@example.com=ok', 'bob@mailinator.com=disposable']);
      const domains = [];
      for await (const r of idv.validateDomains(['https://mailinator.com/', 'example.com'], options)) domains.push(`${r.item}=${r.status}`);
      expect(domains).toEqual(['mailinator.com=disposable', 'example.com=ok']);
      const file = await idv.readRecords(Buffer.from('name,email\nAnn,ann@example.com\n'));
      const items = [];
      for await (const record of file) items.push(record.item);
      expect(items).toEqual(['ann@example.com']);
    } finally {
      await sandbox.close();
    }
  });
});
