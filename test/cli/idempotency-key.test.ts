// --idempotency-key KEY on a command that changes something: run again after a crash with the same
// key, the change is made once and the first answer comes back (exit 0), embedded and remote; a
// command's later writes carry KEY/2, KEY/3; the same key for another request is refused; a key a
// header cannot carry is exit 2; a command that sends no change says the key went unused.
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ensureBundle, runCli, TEST_CONFIG_DIR, watchServe, type ServeChild } from '../helpers/cli.js';
import { storeWithAccount } from '../helpers/store.js';
import { cli } from './harness.js';

const servers: ServeChild[] = [];
afterAll(async () => {
  for (const serve of servers) {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
});

const customer = ['customers', 'create', '--first-name', 'Jan', '--last-name', 'Jansen', '--email', 'jan@example.com'];

describe('--idempotency-key', () => {
  it('embedded: a create and a finalise run twice are made once, the second answered as the first', async () => {
    const run = cli();
    const first = await run.run([...customer, '--idempotency-key', 'step-1', '--json']);
    const again = await run.run([...customer, '--idempotency-key', 'step-1', '--json']);
    expect([first.code, again.code]).toEqual([0, 0]);
    expect(JSON.parse(again.stdout).data.id).toBe(JSON.parse(first.stdout).data.id);
    expect(await run.customerCount()).toBe(1);

    expect((await run.run(['plans', 'create', '--name', 'Box', '--amount', '10'])).code).toBe(0);
    const sub = ['subscriptions', 'create', '--customer-id', '1', '--subscription-plan-id', '1'];
    expect((await run.run(sub)).code).toBe(0);
    expect((await run.run(['invoices', 'create', '--subscription-id', '1'])).code).toBe(0);
    const line = ['lines', 'create', '--invoice-id', '1', '--description', 'Soup', '--amount', '5', '--tax-rate', '9'];
    expect((await run.run(line)).code).toBe(0);
    const finalise = ['invoices', 'finalise', '1', '--yes', '--idempotency-key', 'finalise-1', '--json'];
    const finalised = await run.run(finalise);
    expect(finalised.code, finalised.stderr).toBe(0);
    // Without the key a second finalise is refused (already open); with it, the first answer comes back.
    const rerun = await run.run(finalise);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(JSON.parse(rerun.stdout)).toEqual(JSON.parse(finalised.stdout));
    expect((await run.run(['invoices', 'finalise', '1', '--yes'])).code).toBe(1);

    const other = await run.run([...customer.slice(0, 3), 'Piet', ...customer.slice(4), '--idempotency-key', 'step-1']);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('this Idempotency-Key was used with a different request');
    expect(await run.customerCount()).toBe(1);
  });

  it('refuses a key a header cannot carry (exit 2) and says when a command sent no change', async () => {
    const run = cli();
    const bad = await run.run([...customer, '--idempotency-key', 'two words']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--idempotency-key must be 1 to 240 printable ASCII characters');
    expect(await run.customerCount()).toBe(0);
    const read = await run.run(['customers', 'list', '--idempotency-key', 'k']);
    expect(read.code).toBe(0);
    expect(read.stderr).toContain('warning: --idempotency-key was not used: this command sent the service no change');
  });

  it('remote: the same through billing serve', async () => {
    ensureBundle('this command sent the service no change');
    const { dbPath, key } = await storeWithAccount();
    const serve = watchServe(
      spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', dbPath], {
        env: { PATH: process.env.PATH, NO_COLOR: '1', BILLING_CONFIG_DIR: TEST_CONFIG_DIR },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    servers.push(serve);
    const remote = ['--base-url', `http://127.0.0.1:${await serve.port}`, '--api-key', key];
    const first = await runCli([...remote, ...customer, '--idempotency-key', 'remote-1', '--json']);
    const again = await runCli([...remote, ...customer, '--idempotency-key', 'remote-1', '--json']);
    expect([first.code, again.code], again.stderr).toEqual([0, 0]);
    expect(JSON.parse(again.stdout).data.id).toBe(JSON.parse(first.stdout).data.id);
    const listed = await runCli([...remote, 'customers', 'list', '--json']);
    expect(JSON.parse(listed.stdout).data).toHaveLength(1);

    // A write without a body (PATCH .../finalise): its key is kept by the server as well. Plans are
    // made on the store itself.
    const onStore = ['--db', dbPath, '--account', 'alpha', '-q'];
    const plan = await runCli(['plans', 'create', '--name', 'Box', '--amount', '10', ...onStore]);
    expect(plan.code, plan.stderr).toBe(0);
    for (const step of [
      ['subscriptions', 'create', '--customer-id', '1', '--subscription-plan-id', '1'],
      ['invoices', 'create', '--subscription-id', '1'],
      ['lines', 'create', '--invoice-id', '1', '--description', 'Soup', '--amount', '5', '--tax-rate', '9'],
    ]) {
      const made = await runCli([...remote, ...step, '-q']);
      expect(made.code, `${step.join(' ')}: ${made.stderr}`).toBe(0);
    }
    const finalise = [
      ...remote,
      'invoices',
      'finalise',
      '1',
      '--yes',
      '--idempotency-key',
      'remote-finalise',
      '--json',
    ];
    const finalised = await runCli(finalise);
    expect(finalised.code, finalised.stderr).toBe(0);
    const rerun = await runCli(finalise);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(JSON.parse(rerun.stdout)).toEqual(JSON.parse(finalised.stdout));
    expect((await runCli([...remote, 'invoices', 'finalise', '1', '--yes'])).code).toBe(1);
  }, 60_000);
});
