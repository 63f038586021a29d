// The built CLI in a real terminal (tmux, 80 columns): prompts as a support person answers them,
// Ctrl-C inside a prompt, and a table after `billing demo` that fits the screen.
import { spawnSync } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBundle, runCli } from '../helpers/cli.js';
import { tempDbPath, tempDir } from '../helpers/store.js';
import { terminal, type Terminal } from '../helpers/tmux.js';

const configDir = tempDir('billing-config-');
const env = { BILLING_CONFIG_DIR: configDir, NO_COLOR: '1' };
const billing = (db: string, args: string) => `'${process.execPath}' '${BIN}' --db '${db}' ${args}`;

let open: Terminal | undefined;
afterEach(() => {
  open?.close();
  open = undefined;
});

beforeAll(() => {
  if (spawnSync('tmux', ['-V']).status !== 0) throw new Error('these tests need tmux (apt-get install tmux)');
  ensureBundle();
}, 120_000);

const customers = async (db: string) =>
  JSON.parse((await runCli(['--db', db, 'customers', 'list', '--all', '--json'], { env })).stdout || '{"data":[]}')
    .data;

describe('prompts in a real terminal', () => {
  it('customers create asks for each missing field, refuses a bad email inline, offers the IBAN and its holder, and creates', async () => {
    const db = tempDbPath();
    open = terminal(billing(db, 'customers create --json'), { env });
    await open.waitFor('First name');
    open.type('Jan');
    open.send(['Enter']);
    await open.waitFor('Last name');
    open.type('Jansen');
    open.send(['Enter']);
    await open.waitFor('Email address');
    open.type('jan@');
    open.send(['Enter']);
    await open.waitFor('must be a valid email address');
    open.type('example.com');
    open.send(['Enter']);
    // On a terminal the IBAN is offered too (Enter skips), and a given IBAN asks for its holder.
    await open.waitFor('IBAN of the account to debit');
    open.type('NL91 ABNA 0417 1643 00');
    open.send(['Enter']);
    await open.waitFor('Account holder name');
    open.type('J. Jansen');
    open.send(['Enter']);
    await open.waitFor('EXIT=0');
    const created = await customers(db);
    expect(created).toHaveLength(1);
    expect(created[0].attributes).toMatchObject({
      first_name: 'Jan',
      last_name: 'Jansen',
      email: 'jan@example.com',
      iban: 'NL91ABNA0417164300',
      bank_holder: 'J. Jansen',
    });
  }, 30_000);

  it('Ctrl-C inside a prompt exits 130 and writes nothing', async () => {
    const db = tempDbPath();
    // The store exists before, so "nothing written" is about customers, not the file.
    expect(
      (
        await runCli(
          ['--db', db, 'customers', 'create', '--first-name', 'A', '--last-name', 'B', '--email', 'a@example.com'],
          { env },
        )
      ).code,
    ).toBe(0);
    open = terminal(billing(db, 'customers create'), { env });
    await open.waitFor('First name');
    open.type('Piet');
    open.send(['Enter']);
    await open.waitFor('Last name');
    open.send(['C-c']);
    await open.waitFor('EXIT=130');
    expect(await customers(db)).toHaveLength(1);
  }, 30_000);
});

describe('a table at 80 columns', () => {
  it('customers list after billing demo fits the screen; the column needed least goes first, and is back on a wide one', async () => {
    const db = tempDbPath();
    expect((await runCli(['--db', db, 'demo'], { env })).code).toBe(0);
    const tableOn = async (width: number) => {
      open?.close();
      open = terminal(billing(db, 'customers list'), { env, width, height: 30 });
      const screen = await open.waitFor('EXIT=0');
      for (const line of screen) expect(line.length, line).toBeLessThanOrEqual(width);
      const table = screen.slice(
        0,
        screen.findIndex((line) => line.startsWith('page 1 of')),
      );
      expect(table.length).toBeGreaterThanOrEqual(10);
      expect(screen.join('\n')).toContain('page 1 of 2, 20 customers');
      return table.join('\n');
    };
    const at80 = await tableOn(80);
    expect(at80).toMatch(/\bid\b.*\bname\b.*\bemail\b/);
    expect(at80).toContain('Jeroen van der Geer');
    expect(at80).not.toContain('payment method');
    expect(await tableOn(120)).toMatch(/\bid\b.*\bname\b.*\bemail\b.*\bpayment method\b/);
    // Narrower still: long cells are cut, ending in …
    expect(await tableOn(40)).toContain('…');
  }, 30_000);
});
