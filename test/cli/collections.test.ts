// The built CLI collecting by SEPA, on an embedded store and in remote mode against `billing serve`,
// side by side: collections create|export|import|list|get|cancel print the same and exit alike.
// Real time, and a day's pre-notification: a subscription activated today is due on the next
// TARGET2 business day, which is what `collections create` takes by default, whatever the day.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { camt054For } from '../helpers/bank-reports.js';
import { BIN, ensureBundle, runCli, TEST_CONFIG_DIR, type CliResult } from '../helpers/cli.js';
import { CREDITOR, IBANS } from '../helpers/sepa.js';
import { tempDbPath, tempDir } from '../helpers/store.js';
import { expectValid } from '../helpers/xmllint.js';

const EMBEDDED_BASE = 'http://127.0.0.1:8080';
let server: ChildProcess | undefined;
let url = '';
let key = '';
const embeddedDb = tempDbPath();
const servedDb = tempDbPath();
const dir = tempDir('billing-sepa-cli-');

/**
 * What differs between the two stores: the base of links, times, random transaction ids (EndToEndIds
 * are made of them) and the secrets of mandate pages.
 */
const normalise = (text: string) =>
  text
    .split(url)
    .join('BASE')
    .split(EMBEDDED_BASE)
    .join('BASE')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d([+-]\d\d:\d\d|Z)/g, 'TIME')
    .replace(/\d{4}-\d\d-\d\d \d\d:\d\d( [+-]\d\d:\d\d)?/g, 'TIME')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'UUID')
    .replace(/[0-9a-f]{32}-\d/g, 'E2E')
    .replace(/(\/mandate\/accept\/\d+\/)[0-9a-f]{64}/g, '$1TOKEN');

const remote = (args: string[]) => runCli([...args, '--base-url', url, '--api-key', key]);
const embedded = (args: string[]) => runCli([...args, '--db', embeddedDb, '--account', 'alpha']);

/** The same command both ways: the same exit code, stdout and stderr once normalised. */
async function both(args: string[], code = 0): Promise<{ remote: CliResult; embedded: CliResult }> {
  const answers = { remote: await remote(args), embedded: await embedded(args) };
  expect(answers.embedded.code, answers.embedded.stderr).toBe(code);
  expect(answers.remote.code, answers.remote.stderr).toBe(code);
  expect(normalise(answers.remote.stdout)).toBe(normalise(answers.embedded.stdout));
  expect(normalise(answers.remote.stderr)).toBe(normalise(answers.embedded.stderr));
  return answers;
}

/** A camt.054 booking the first debit of a file and returning the second with a code; and one entry of nobody's. */
function bankAnswer(xml: string, code: string): string {
  const ids = [...xml.matchAll(/<EndToEndId>([^<]*)</g)].map((m) => m[1]);
  const day = /<ReqdColltnDt>([^<]*)</.exec(xml)![1];
  return camt054For({
    bookedOn: day,
    messageId: 'CAMT-1',
    booked: [
      { endToEndId: ids[0], amountCents: 1250 },
      { endToEndId: 'NOT-OURS-1', amountCents: 700 },
    ],
    returns: [{ endToEndId: ids[1], amountCents: 1250, reasonCode: code }],
  });
}

beforeAll(async () => {
  ensureBundle('collections');
  for (const db of [servedDb, embeddedDb]) {
    const made = await runCli(['accounts', 'create', 'alpha', '--json', '--db', db]);
    expect(made.code, made.stderr).toBe(0);
    if (db === servedDb) key = JSON.parse(made.stdout).api_key;
    const sepa = [
      'accounts',
      'update',
      'alpha',
      '--collection',
      'sepa',
      '--creditor-id',
      CREDITOR.creditor_id,
      '--creditor-name',
      CREDITOR.creditor_name,
      '--creditor-iban',
      CREDITOR.creditor_iban,
      '--prenotification-days',
      '1',
      '--db',
      db,
    ];
    expect((await runCli(sepa)).code).toBe(0);
    expect(
      (
        await runCli([
          'plans',
          'create',
          '--name',
          'Lidmaatschap',
          '--amount',
          '12,50',
          '--frequency',
          'monthly',
          '--db',
          db,
          '--account',
          'alpha',
          '-q',
        ])
      ).code,
    ).toBe(0);
  }
  server = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', servedDb], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', BILLING_CONFIG_DIR: TEST_CONFIG_DIR },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${seen}`)), 10_000);
    server!.stderr!.on('data', (chunk) => {
      seen += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
  const people: [string, string, string | null][] = [
    ['Zoë', 'Ångström', IBANS.abn],
    ['Jürgen', 'Groß', IBANS.rabo],
    ['Piet', 'Zonder', null],
  ];
  for (const [i, [first, last, iban]] of people.entries()) {
    const bank = iban ? ['--iban', iban, '--bank-holder', `${first} ${last}`] : [];
    await both([
      'customers',
      'create',
      '--first-name',
      first,
      '--last-name',
      last,
      '--email',
      `member${i}@example.com`,
      ...bank,
      '-q',
    ]);
  }
  for (const customer of ['1', '2', '3']) {
    await both([
      'subscriptions',
      'create',
      '--customer-id',
      customer,
      '--subscription-plan-id',
      '1',
      '--status',
      'active',
      '--mandate-accepted',
      '--mandate-accepted-date',
      '2026-01-15',
      '-q',
    ]);
  }
}, 600_000);

afterAll(async () => {
  if (!server || server.exitCode !== null) return;
  const exited = new Promise<number | null>((resolve) => server!.once('exit', (code) => resolve(code)));
  server.kill('SIGTERM');
  expect(await exited).toBe(0);
});

describe('billing collections, embedded and remote alike', { timeout: 180_000 }, () => {
  it('accounts update refuses a creditor id with wrong check digits, naming it', async () => {
    const refused = await runCli([
      'accounts',
      'update',
      'alpha',
      '--creditor-id',
      'NL98ZZZ999999999999',
      '--db',
      embeddedDb,
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'error: creditor_id: must be a SEPA creditor identifier with valid check digits (ISO 7064 mod 97-10), e.g. NL57ZZZ999999999999\n',
    );
  });

  it('create makes a batch of what is due and lists what is left out with its reason, in the table and in --json', async () => {
    const { embedded: made } = await both(['collections', 'create']);
    expect(made.stderr).toMatch(
      /^made collection 1: 2 transactions due by \d{4}-\d\d-\d\d\nleft out \(1\), each still waiting:\n$/,
    );
    expect(made.stdout).toContain('status\topen\n');
    expect(made.stdout).toMatch(
      /\ntransaction\tsubscription\tdue date\tamount\treason\n[0-9a-f-]{36}\t3\t\d{4}-\d\d-\d\d\t€ 12\.50\tthe customer has no IBAN\n$/,
    );
    const again = await both(['collections', 'create', '--json']);
    const document = JSON.parse(again.embedded.stdout);
    expect(document.data).toBeNull();
    expect(document.meta.left_out).toEqual([
      expect.objectContaining({ subscription_id: '3', amount: '12.50', reason: 'the customer has no IBAN' }),
    ]);
    await both(['collections', 'list']);
    await both(['collections', 'get', '1']);
  });

  it('export streams the file to stdout or, whole or not at all, to --out; every export gives the same bytes', async () => {
    // A place that cannot be written fails before the batch is asked for: it is not marked exported.
    const nowhere = join(dir, 'no-such-folder', 'batch.xml');
    const unwritable = await both(['collections', 'export', '1', '--out', nowhere], 2);
    expect(unwritable.embedded.stderr).toBe(`error: --out ${nowhere}: cannot write there (ENOENT)\n`);
    const folder = await both(['collections', 'export', '1', '--out', dir], 2);
    expect(folder.embedded.stderr).toBe(`error: --out ${dir} is a folder: name the file to write\n`);
    const status = await both(['collections', 'get', '1', '--json']);
    expect(JSON.parse(status.embedded.stdout).data.attributes.status).not.toBe('exported');
    expect(JSON.parse(status.remote.stdout).data.attributes.status).not.toBe('exported');
    const files = { remote: join(dir, 'remote.xml'), embedded: join(dir, 'embedded.xml') };
    const written = {
      remote: await remote(['collections', 'export', '1', '--out', files.remote]),
      embedded: await embedded(['collections', 'export', '1', '--out', files.embedded]),
    };
    for (const side of ['remote', 'embedded'] as const) {
      expect(written[side]).toEqual({ code: 0, stdout: '', stderr: `exported collection 1 to ${files[side]}\n` });
    }
    const xml = { remote: readFileSync(files.remote, 'utf8'), embedded: readFileSync(files.embedded, 'utf8') };
    expect(normalise(xml.remote)).toBe(normalise(xml.embedded));
    await expectValid([xml.remote, xml.embedded], 'pain.008.001.02');
    expect(xml.embedded).toContain('<Nm>Zoe Angstrom</Nm>');
    expect(xml.embedded).toContain('<Nm>Jurgen Gross</Nm>');
    expect((await remote(['collections', 'export', '1'])).stdout).toBe(xml.remote);
    expect((await embedded(['collections', 'export', '1'])).stdout).toBe(xml.embedded);
    const v8 = await both(['collections', 'export', '1', '--format', 'pain.008.001.08']);
    await expectValid([v8.remote.stdout], 'pain.008.001.08');
    // A batch that has no file: nothing is written, not even half a file or a temporary one.
    const missing = join(dir, 'missing.xml');
    const refused = await both(['collections', 'export', '99', '--out', missing], 1);
    expect(refused.embedded.stderr).toBe('error: Not Found: no collection with id 99\n');
    expect(existsSync(missing)).toBe(false);
    expect(readdirSync(dir).filter((name) => name.endsWith('.part'))).toEqual([]);
    await both(['collections', 'export', '1', '--format', 'pain.008.001.09'], 2);
    // Exported: no longer to be cancelled.
    const late = await both(['collections', 'cancel', '1', '--yes'], 1);
    expect(late.embedded.stderr).toBe(
      'error: status: collection 1 is exported: only a batch not yet exported can be cancelled (its file may be at the bank)\n',
    );
  });

  it('export --out to a link, dangling or not, writes the file it leads to and leaves the link a link', async () => {
    const xml = (await embedded(['collections', 'export', '1'])).stdout;
    const target = join(dir, 'linked.xml');
    writeFileSync(target, 'old');
    const link = join(dir, 'link.xml');
    symlinkSync(target, link);
    // A relative link to a link to a file not made yet.
    const dangling = join(dir, 'dangling.xml');
    symlinkSync('dangling-next.xml', dangling);
    symlinkSync('not-yet.xml', join(dir, 'dangling-next.xml'));
    for (const out of [link, dangling]) {
      const written = await embedded(['collections', 'export', '1', '--out', out]);
      expect(written).toEqual({ code: 0, stdout: '', stderr: `exported collection 1 to ${out}\n` });
    }
    for (const out of [link, dangling, join(dir, 'dangling-next.xml')]) {
      expect(lstatSync(out).isSymbolicLink(), out).toBe(true);
    }
    expect(readFileSync(target, 'utf8')).toBe(xml);
    expect(readFileSync(join(dir, 'not-yet.xml'), 'utf8')).toBe(xml);
    expect(readdirSync(dir).filter((name) => name.endsWith('.part'))).toEqual([]);
  });

  it('export --out into a FIFO writes straight into it: its reader gets the whole file', async () => {
    const xml = (await embedded(['collections', 'export', '1'])).stdout;
    const fifo = join(dir, 'batch.fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'ignore'] });
    let read = '';
    reader.stdout.setEncoding('utf8').on('data', (chunk: string) => (read += chunk));
    const closed = new Promise((resolve) => reader.on('close', resolve));
    const written = await embedded(['collections', 'export', '1', '--out', fifo]);
    expect(written).toEqual({ code: 0, stdout: '', stderr: `exported collection 1 to ${fifo}\n` });
    // A reader left waiting on a FIFO that nobody opens is let go.
    const timer = setTimeout(() => reader.kill(), 5_000);
    await closed;
    clearTimeout(timer);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(read).toBe(xml);
  });

  it("import applies the bank's report, lists what matches nothing (exit 0), and says when a file was imported before", async () => {
    const files = { remote: join(dir, 'camt-remote.xml'), embedded: join(dir, 'camt-embedded.xml') };
    writeFileSync(files.remote, bankAnswer(readFileSync(join(dir, 'remote.xml'), 'utf8'), 'AC04'));
    writeFileSync(files.embedded, bankAnswer(readFileSync(join(dir, 'embedded.xml'), 'utf8'), 'AC04'));
    const first = {
      remote: await remote(['collections', 'import', files.remote]),
      embedded: await embedded(['collections', 'import', files.embedded]),
    };
    for (const side of ['remote', 'embedded'] as const) {
      expect(first[side].code, first[side].stderr).toBe(0);
      expect(first[side].stdout).toBe(
        `id\tfile\tformat\tbooked\trejected\treturned\tunchanged\tunmatched\n1\t${files[side]}\tcamt.054.001.02\t1\t0\t1\t0\t1\n` +
          `EndToEndId\tfile\toutcome\tcode\tamount\treason\nNOT-OURS-1\t${files[side]}\tbooked\t\t€ 7.00\tno collection has this EndToEndId\n`,
      );
      expect(first[side].stderr).toBe(
        `${files[side]}: camt.054.001.02 CAMT-1: 1 booked, 0 rejected, 1 returned, 0 unchanged (settled so before), 1 unmatched\nentries that matched no collection (1), nothing done with them:\n`,
      );
      const again =
        side === 'remote'
          ? await remote(['collections', 'import', files.remote])
          : await embedded(['collections', 'import', files.embedded]);
      expect(again.code).toBe(0);
      expect(again.stderr.split('\n')[0]).toBe(
        `${files[side]}: camt.054.001.02 CAMT-1: imported before as bank report 1: nothing changed`,
      );
    }
    // AC04 (account closed): failed at once, the mandate flagged, shown by subscriptions get.
    const subscription = await both(['subscriptions', 'get', '2']);
    expect(subscription.embedded.stdout).toMatch(
      /\nmandate attention\treason code: AC04, reason: Account closed, flagged at: \d{4}-\d\d-\d\d \d\d:\d\d [+-]\d\d:\d\d\n$/,
    );
    const json = JSON.parse((await both(['subscriptions', 'get', '2', '--json'])).remote.stdout);
    expect(json.data.meta.mandate_attention.reason_code).toBe('AC04');
  });

  it('import of a file that is no bank report, or no well-formed XML, is exit 2 naming why (the line), changing nothing', async () => {
    const pain = join(dir, 'embedded.xml');
    const notReport = await both(['collections', 'import', pain], 2);
    expect(notReport.embedded.stderr).toBe(
      `error: 1 of 1 files not imported (nothing of them changed):\n  ${pain}: a pain.008.001.02 file is a collection file for the bank, not a report from it (camt.054, camt.053 or pain.002)\n`,
    );
    const broken = join(dir, 'broken.xml');
    writeFileSync(
      broken,
      camt054For({ bookedOn: '2026-12-01', booked: [{ endToEndId: 'X-1', amountCents: 100 }] }).replace(
        '</Ntfctn>',
        '</Ntfctn',
      ),
    );
    const malformed = await both(['collections', 'import', broken], 2);
    expect(malformed.embedded.stderr).toMatch(
      new RegExp(
        `^error: 1 of 1 files not imported \\(nothing of them changed\\):\\n  ${broken}: the report is not well-formed XML at line \\d+: [a-z]`,
      ),
    );
    expect((await both(['collections', 'import', join(dir, 'nowhere.xml')], 2)).embedded.stderr).toBe(
      `error: ${join(dir, 'nowhere.xml')}: cannot read it (ENOENT)\n`,
    );
    // A folder among the files: refused before any of them is imported.
    const camt = join(dir, 'fresh-camt.xml');
    writeFileSync(camt, camt054For({ bookedOn: '2026-12-01', booked: [{ endToEndId: 'X-2', amountCents: 100 }] }));
    const withFolder = await both(['collections', 'import', camt, dir], 2);
    expect(withFolder.embedded.stderr).toBe(`error: ${dir}: cannot read it (not a file)\n`);
    const alone = await both(['collections', 'import', camt]);
    expect(alone.embedded.stderr).not.toContain('imported before');
    expect(alone.remote.stderr).not.toContain('imported before');
  });

  it('transactions simulate is refused on an account collecting by SEPA', async () => {
    const id = JSON.parse((await embedded(['transactions', 'list', '--subscription-id', '1', '--json'])).stdout).data[0]
      .id;
    const refused = await embedded(['transactions', 'simulate', id, '--outcome', 'failed']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      "error: Invalid State: account alpha collects by SEPA: outcomes come from the bank's reports (billing collections import FILE), not from a simulation\n",
    );
  });
});
