// billing config get|set|unset|list: defaults in the config file. API keys are never printed.
import type { Command } from 'commander';
import { CONFIG_KEYS, configPath, readConfig, updateConfig, type ConfigKey } from '../../lib/config/file.js';
import { UsageError } from '../../lib/command/errors.js';
import type { Invoke, VerbModule } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { parseLocation, redact } from '../../lib/store/store.js';

const SECRET = new Set<string>(['api_key']);
// A database URL's password is a secret too: shown as ***.
export const shown = (key: string, value: string | undefined): string => (value === undefined ? '' : SECRET.has(key) ? '(set, hidden)' : redact(value));

function checkKey(key: string): ConfigKey {
  if (!(CONFIG_KEYS as readonly string[]).includes(key)) throw new UsageError(`unknown setting "${key}"; settings: ${CONFIG_KEYS.join(', ')}`);
  return key as ConfigKey;
}

function checkValue(key: ConfigKey, value: string): string {
  if (key === 'base_url' && !/^https?:\/\/[^/]+/i.test(value)) throw new UsageError('base_url must be an absolute http(s) URL');
  if (key === 'db') parseLocation(value); // a URL of another engine is refused now, not at the next command
  if (key === 'timeout' && !(Number.isFinite(Number(value)) && Number(value) > 0)) throw new UsageError('timeout must be a number of seconds above 0');
  return value;
}

export const get: VerbModule = {
  configure(cmd: Command, invoke: Invoke) {
    cmd
      .argument('<key>', CONFIG_KEYS.join(', '))
      .addHelpText('after', examples('billing config get base_url'))
      .action((key: string, _o: unknown, command: Command) =>
        invoke(command, async (deps) => {
          const name = checkKey(key);
          const value = readConfig(deps.env).defaults?.[name];
          if (deps.globals.output === 'json') deps.io.out(`${JSON.stringify({ [name]: value === undefined ? null : shown(name, value) })}\n`);
          else if (value !== undefined) deps.io.out(`${shown(name, value)}\n`);
          else if (!deps.globals.quiet) deps.io.err(`${name} is not set\n`);
        }),
      );
  },
};

export const set: VerbModule = {
  configure(cmd: Command, invoke: Invoke) {
    cmd
      .argument('<key>', CONFIG_KEYS.join(', '))
      .argument('<value>', 'the value')
      .addHelpText('after', examples('billing config set base_url https://billing.example.com', 'billing config set timeout 10', 'billing config set db ~/billing/test.db', 'billing config set db postgres://billing:secret@db.example.com/billing'))
      .action((key: string, value: string, _o: unknown, command: Command) =>
        invoke(command, async (deps) => {
          const name = checkKey(key);
          await updateConfig(deps.env, (config) => {
            config.defaults = { ...config.defaults, [name]: checkValue(name, value) };
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
    cmd.addHelpText('after', examples('billing config list', 'billing config list --json')).action((_o: unknown, command: Command) =>
      invoke(command, async (deps) => {
        const defaults = readConfig(deps.env).defaults ?? {};
        const entries = CONFIG_KEYS.filter((k) => defaults[k] !== undefined).map((k) => [k, shown(k, defaults[k])] as const);
        if (deps.globals.output === 'json') deps.io.out(`${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`);
        else if (entries.length === 0) {
          if (!deps.globals.quiet) deps.io.err(`no settings in ${configPath(deps.env)}\n`);
        } else for (const [k, v] of entries) deps.io.out(`${k}=${v}\n`);
      }),
    );
  },
};
