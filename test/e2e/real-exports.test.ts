// Exports as the real products write them (fixtures/exports/, described in fixtures/README.md).
// Every fixture: one output record per input record, in order, the right column, every cell of
// --keep-columns byte-identical to the input cell (UTF-8 out), what was skipped said on stderr, exit 0.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixture, makeHome, sandbox, sentItems } from '../helpers.js';
import { run } from '../fake-io.js';

const DIR = fixture('exports');
const inputs = readdirSync(DIR).filter((f) => !f.includes('.expected.'));

/** What each fixture says on stderr (one note per skipped preamble or footer, a doubtful encoding), and its command. */
const NOTES: Record<string, string[]> = {
  'google-contacts.csv': ['line 8 holds several addresses in one cell of column 19 ("E-mail 1 - Value"): each such row is one record, written as invalid; split that cell, one address a cell, to validate each.'],
  'linkedin-connections.csv': ['skipped lines 1–2 above the header (not records): "Notes:"'],
  'numbers-table-name.csv': ['skipped line 1 above the header (not a record): "Table 1"'],
  'salesforce-report.csv': ['skipped lines 7, 10–13 below the data (not records): "Grand Totals (4 records)"'],
  // Reports of sections: each section's addresses from its own column, the headings skipped and said.
  'zoom-webinar-attendees.csv': [
    'skipped lines 1–5 above the header (not records): "Attendee Report"',
    "skipped lines 8–9, 12–13, the titles and headers of its sections (not records); each section's addresses were read from its own column",
  ],
  'teams-attendance-report.csv': [
    'skipped lines 1–7, 9 above the header (not records): "1. Summary"',
    "skipped lines 21–22, the titles and headers of its sections (not records); each section's addresses were read from its own column",
  ],
  'gotowebinar-attendees.csv': ['skipped lines 1–13 above the header (not records): "Attendee Report GoToWebinar"'],
  // Eight lines of Western names: Windows-1252 or Windows-1250 read them alike but for ø and ñ.
  'outlook-contacts.csv': ['read as windows-1252 (detected, not for certain: it could be windows-1250); if its text looks wrong, give --encoding windows-1250.'],
};
const kindOf = (f: string) => (f.startsWith('companies-') ? 'domains' : 'emails');

describe('real exports', () => {
  it('the corpus has at least 15 exports, each with its expected result beside it', () => {
    expect(inputs.length).toBeGreaterThanOrEqual(15);
    for (const f of inputs) expect(readdirSync(DIR)).toContain(f.replace(/\.[^.]+$/, '.expected.csv'));
  });

  for (const f of inputs) {
    it(`${f}: every record, the right column, every cell as read`, async () => {
      const path = join(DIR, f);
      const r = await run([kindOf(f), path, '--sandbox', '-q', '--keep-columns', '-f', 'csv']);
      expect(r.stderr).toBe((NOTES[f] ?? []).map((n) => `idv: note: ${path}: ${n}\n`).join(''));
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(readFileSync(join(DIR, f.replace(/\.[^.]+$/, '.expected.csv')), 'utf8'));
    });
  }

  it('companies-websites.csv: hosts kept as written, one canonical form sent once each', async () => {
    const home = await makeHome();
    const { sb, env } = await sandbox({}, home);
    try {
      const r = await run(['domains', join(DIR, 'companies-websites.csv'), '-q'], { env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(
        'domain,status\nbücher.de,ok\nbücher.de,ok\nwww.Globex.com,ok\ninitech.com,ok\nmailinator.com,disposable\nfake.com.,fake\nn/a,invalid\n',
      );
      expect(sentItems(sb)).toEqual(['xn--bcher-kva.de', 'www.globex.com', 'initech.com', 'mailinator.com', 'fake.com']);
    } finally {
      await sb.close();
      await home.cleanup();
    }
  });

  it('outlook-contacts.csv: --keep-columns -f json keeps every cell, Windows-1252 read as such', async () => {
    const r = await run(['emails', join(DIR, 'outlook-contacts.csv'), '--sandbox', '-q', '--keep-columns', '-f', 'ndjson']);
    const first = JSON.parse(r.stdout.split('\n')[0]!) as Record<string, string>;
    expect(first).toMatchObject({ 'First Name': 'Renée', 'Last Name': 'Lefèvre', Company: 'Café Noir', Notes: 'Met at the\r\nSalon du Chocolat', status: 'ok' });
  });
});
