// billing config get|set|unset|list: defaults in the config file. API keys are never printed.
import type { Command } from 'commander';
import {
  CONFIG_KEYS,
  configPath,
  emptyRecord,
  own,
  readConfig,
  updateConfig,
  type ConfigFile,
  type ConfigKey,
} from '../../lib/config/file.js';
import { isSendableKey, unsendableKey } from '../../lib/transport/keys.js';
import type { Deps } from '../../lib/command/deps.js';
import { UsageError } from '../../lib/cli/errors.js';
import type { Invoke, VerbModule } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { parseLocation, redact } from '../../lib/runtime/locations.js';

const SECRET = new Set<string>(['api_key']);
// A database URL's password is a secret too: shown as ***.
export const shown = (key: string, value: string | undefined): string =>
  value === undefined ? '' : SECRET.has(key) ? '(set, hidden)' : redact(value);

/** A default from the file, by one of CONFIG_KEYS only. */
const defaultOf = (config: ConfigFile, key: ConfigKey): string | undefined => {
  const value = own(config.defaults as Record<string, string | number | undefined> | undefined, key);
  return value === undefined ? undefined : String(value);
};

/** --dry-run: what would change, as one JSON document on stdout; nothing is written. */
const printDryRun = (deps: Deps, document: Record<string, unknown>): void =>
  deps.io.out(`${JSON.stringify({ dry_run: true, ...document }, null, 2)}\n`);

function checkKey(key: string): ConfigKey {
  if (!(CONFIG_KEYS as readonly string[]).includes(key))
    throw new UsageError(`unknown setting "${key}"; settings: ${CONFIG_KEYS.join(', ')}`);
  return key as ConfigKey;
}

function checkValue(key: ConfigKey, value: string): string {
  if (key === 'base_url' && !/^https?:\/\/[^/]+/i.test(value))
    throw new UsageError('base_url must be an absolute http(s) URL');
  if (key === 'db') parseLocation(value); // a URL of another engine is refused now, not at the next command
  if (key === 'timeout' && !(Number.isFinite(Number(value)) && Number(value) > 0))
    throw new UsageError('timeout must be a number of seconds above 0');
  if (key === 'api_key' && !isSendableKey(value)) throw new UsageError(unsendableKey('given'));
  return value;
}

export const get: VerbModule = {
  configure(cmd: Command, invoke: Invoke) {
    cmd
      .argument('<key>', CONFIG_KEYS.join(', '))
      .addHelpText('after', examples('billing config get base_url'))
      .action((key: string, _o: unknown, command: Command) =>
        invoke(command, (deps) => {
          const name = checkKey(key);
          const value = defaultOf(readConfig(deps.env), name);
          if (deps.globals.output === 'json')
            deps.io.out(`${JSON.stringify({ [name]: value === undefined ? null : shown(name, value) })}\n`);
          else if (value !== undefined) deps.io.out(`${shown(name, value)}\n`);
          else if (!deps.globals.quiet) deps.io.err(`${name} is not set\n`);
          return Promise.resolve();
        }),
      );
  },
};

export const set: VerbModule = {
  configure(cmd: Command, invoke: Invoke) {
    cmd
      .argument('<key>', CONFIG_KEYS.join(', '))
      .argument('<value>', 'the value')
      .addHelpText(
        'after',
        examples(
          'billing config set base_url https://billing.example.com',
          'billing config set timeout 10',
          'billing config set db ~/billing/test.db',
          'billing config set db postgres://billing:secret@db.example.com/billing',
        ),
      )
      .action((key: string, value: string, _o: unknown, command: Command) =>
        invoke(command, async (deps) => {
          const name = checkKey(key);
          checkValue(name, value);
          if (deps.globals.dryRun) {
            readConfig(deps.env); // a file that cannot be understood is refused here too
            printDryRun(deps, { would: `set ${name}`, settings: { [name]: shown(name, value) } });
            return;
          }
          await updateConfig(deps.env, (config) => {
            (config.defaults ??= emptyRecord())[name] = value;
          });
          if (!deps.globals.quiet) deps.io.err(`set ${name} in ${configPath(deps.env)}\n`);
        }),
      );
  },
};

export const unset: VerbModule = {
  configure(cmd: Command, invoke: Invoke) {
    cmd
      .argument('<key>', CONFIG_KEYS.join(', '))
      .addHelpText('after', examples('billing config unset base_url'))
      .action((key: string, _o: unknown, command: Command) =>
        invoke(command, async (deps) => {
          const name = checkKey(key);
          if (deps.globals.dryRun) {
            printDryRun(deps, {
              would:
                defaultOf(readConfig(deps.env), name) === undefined ? `nothing: ${name} is not set` : `unset ${name}`,
            });
            return;
          }
          await updateConfig(deps.env, (config) => {
            if (config.defaults) delete config.defaults[name];
          });
          if (!deps.globals.quiet) deps.io.err(`unset ${name}\n`);
        }),
      );
  },
};

export const list: VerbModule = {
  configure(cmd: Command, invoke: Invoke) {
    cmd
      .addHelpText('after', examples('billing config list', 'billing config list --json'))
      .action((_o: unknown, command: Command) =>
        invoke(command, (deps) => {
          const config = readConfig(deps.env);
          // The current profile decides too (its settings rank above these): shown first, as billing status does.
          const current = config.current_profile ? ([['current_profile', config.current_profile]] as const) : [];
          const entries = [
            ...current,
            ...CONFIG_KEYS.map((k) => [k, defaultOf(config, k)] as const)
              .filter(([, v]) => v !== undefined)
              .map(([k, v]) => [k, shown(k, v)] as const),
          ];
          if (deps.globals.output === 'json') deps.io.out(`${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`);
          else if (entries.length === 0) {
            if (!deps.globals.quiet) deps.io.err(`no settings in ${configPath(deps.env)}\n`);
          } else for (const [k, v] of entries) deps.io.out(`${k}=${v}\n`);
          return Promise.resolve();
        }),
      );
  },
};
