// plans update and plans archive from the command line (embedded only): what each prints and its
// exit code, the refusals before anything is written, and remote mode refused with the reason.
import { describe, expect, it } from 'vitest';
import { cli } from './harness.js';

describe('billing plans update|archive', () => {
  it('changes a plan, says so, and says when nothing changed (exit 0 both ways)', async () => {
    const run = cli();
    expect((await run.run(['plans', 'create', '--name', 'Box', '--amount', '10'])).code).toBe(0);
    const updated = await run.run(['plans', 'update', '1', '--amount', '12,50', '--name', 'Box 2027', '--json']);
    expect(updated).toMatchObject({ code: 0, stderr: 'updated plan 1\n' });
    expect(JSON.parse(updated.stdout).data.attributes).toMatchObject({ name: 'Box 2027', amount: '12.50' });
    const again = await run.run(['plans', 'update', '1', '--amount', '12.50']);
    expect(again).toMatchObject({ code: 0, stderr: 'plan 1 already has these values: nothing changed\n' });
  });

  it('refuses before writing: nothing to change, a fixed attribute, a bad amount, a plan that is not there', async () => {
    const run = cli();
    await run.run(['plans', 'create', '--name', 'Box', '--amount', '10']);
    const nothing = await run.run(['plans', 'update', '1']);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('error: nothing to change: give at least one of --name');
    const fixed = await run.run(['plans', 'update', '1', '--data', '{"frequency":"yearly"}']);
    expect(fixed.code).toBe(1);
    expect(fixed.stderr).toContain("frequency: cannot change: the plan's subscriptions were agreed under it");
    const bad = await run.run(['plans', 'update', '1', '--amount', '12,505']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--amount');
    const missing = await run.run(['plans', 'update', '7', '--name', 'X']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('no subscription plan with id 7');
    const dry = await run.run(['plans', 'update', '1', '--name', 'Y', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toEqual({ update: 'subscription-plan', id: 1, attributes: { name: 'Y' } });
    const shown = JSON.parse((await run.run(['plans', 'get', '1', '--json'])).stdout).data.attributes;
    expect(shown).toMatchObject({ name: 'Box', amount: '10.00' });
  });

  it('archives a plan: new subscriptions on it are refused, archiving again says so', async () => {
    const run = cli();
    await run.run(['plans', 'create', '--name', 'Box', '--amount', '10']);
    await run.seedCustomers(1);
    expect(await run.run(['plans', 'archive', '1'])).toMatchObject({ code: 0 });
    expect(await run.run(['plans', 'archive', '1'])).toMatchObject({
      code: 0,
      stderr: 'plan 1 is already archived\n',
    });
    const refused = await run.run(['subscriptions', 'create', '--customer-id', '1', '--subscription-plan-id', '1']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('the plan 1 is archived: it takes no new subscriptions');
    expect((await run.run(['plans', 'update', '1', '--no-archived'])).code).toBe(0);
    const made = await run.run(['subscriptions', 'create', '--customer-id', '1', '--subscription-plan-id', '1']);
    expect(made.code).toBe(0);
  });

  it('runs on the embedded store only: remote mode is refused before anything is sent (exit 2)', async () => {
    const run = cli();
    for (const argv of [
      ['plans', 'update', '1', '--name', 'X'],
      ['plans', 'archive', '1'],
    ]) {
      const refused = await run.run(['--base-url', 'http://127.0.0.1:9', '--api-key', 'k', ...argv], { real: true });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`${argv[0]} ${argv[1]} works only on the embedded store`);
    }
  });
});
