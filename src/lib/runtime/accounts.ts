// The accounts of the embedded store, as the `accounts` commands manage them: named operations of
// the runtime over the core's use cases, refusals thrown as the API would answer them.
import * as core from '../core/accounts.js';
import type { Account } from '../core/context.js';
import { orRefuse } from './refusal.js';
import type { Runtime } from './runtime.js';

export type { Account };
export type AccountSettings = core.AccountSettings;

/** Every account, the default one made first when the store has none yet. */
export async function listAccounts(runtime: Runtime): Promise<Account[]> {
  await runtime.account();
  return core.listAccounts(runtime.store);
}

export const showAccount = (runtime: Runtime, name: string): Promise<Account> =>
  orRefuse(core.showAccount(runtime.store, runtime.clock, name), { data: { type: 'account', attributes: { name } } });

export const createAccount = (
  runtime: Runtime,
  name: string,
  settings: AccountSettings,
): Promise<{ account: Account; apiKey: string }> =>
  orRefuse(core.createAccount(runtime.store, runtime.clock, name, settings), {
    data: { type: 'account', attributes: { name, ...settings } },
  });

export const updateAccount = (runtime: Runtime, name: string, settings: AccountSettings): Promise<Account> =>
  orRefuse(core.updateAccount(runtime.store, runtime.clock, name, settings), {
    data: { type: 'account', attributes: { name, ...settings } },
  });

/** Whether rotating the account's key would lock someone out: it has one already. */
export const hasKey = async (runtime: Runtime, name: string): Promise<boolean> =>
  runtime.store.read(() => core.accountHasKey(name));

export const rotateKey = (runtime: Runtime, name: string): Promise<{ account: Account; apiKey: string }> =>
  orRefuse(core.rotateKey(runtime.store, runtime.clock, name), { data: { type: 'account', attributes: { name } } });

export const rotateWebhookSecret = (runtime: Runtime, name: string): Promise<Account> =>
  orRefuse(core.rotateWebhookSecret(runtime.store, runtime.clock, name), {
    data: { type: 'account', attributes: { name } },
  });

/**
 * The secret the account's deliveries are signed with (billing listen --forward-to signs with it too),
 * as the store has it now: the runtime keeps the account it resolved, and a rotation since changes it.
 */
export async function webhookSecret(runtime: Runtime): Promise<string> {
  const { name } = await runtime.account();
  return (await showAccount(runtime, name)).webhook_secret;
}
