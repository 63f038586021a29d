// billing profiles list|add|use|remove. Keys live only in the config file (mode 0600), never in output.
import type { Command } from 'commander';
import { configPath, readConfig, updateConfig } from '../../lib/config/file.js';
import { UsageError } from '../../lib/command/errors.js';
import type { Invoke, VerbModule } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { parseLocation, redact } from '../../lib/store/store.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

function checkName(name: string): string {
  if (!NAME.test(name)) throw new UsageError(`profile names are 1 to 63 letters, digits, _ . or -, not "${name}"`);
  return name;
}

function requireProfile(env: NodeJS.ProcessEnv, name: string): void {
  if (!readConfig(env).profiles?.[name]) throw new UsageError(`no profile named "${name}" (see: billing profiles list)`);
}

export const list: VerbModule = {
  configure(cmd: Command, invoke: Invoke) {
    cmd.addHelpText('after', examples('billing profiles list', 'billing profiles list --json')).action((_o: unknown, command: Command) =>
      invoke(command, async (deps) => {
        const config = readConfig(deps.env);
        const rows = Object.entries(config.profiles ?? {}).map(([name, p]) => ({
          name,
          base_url: p.base_url === undefined ? null : redact(p.base_url),
          api_key: p.api_key ? '(set, hidden)' : null,
          db: p.db === undefined ? null : redact(p.db),
          current: config.current_profile === name,
        }));
        if (deps.globals.output === 'json') {
          deps.io.out(`${JSON.stringify(rows, null, 2)}\n`);
          return;
        }
        if (rows.length === 0) {
          deps.io.err('no profiles (add one: billing profiles add NAME --base-url URL --api-key KEY)\n');
          return;
        }
        const { listTable } = await import('../../lib/output/table.js');
        deps.io.out(listTable(rows.map(({ name, ...attributes }) => ({ type: 'profile', id: name, attributes })), 'profile', deps.globals.color));
      }),
    );
  },
};

export const add: VerbModule = {
  configure(cmd: Command, invoke: Invoke) {
    cmd
      .argument('<name>', 'profile name')
      .option('--base-url <url>', 'the service (remote mode)')
      .option('--api-key <key>', 'its API key (stored in the config file, mode 0600)')
      .option('--db <path|url>', 'an embedded store instead: a SQLite file or a postgres:// URL')
      .option('--use', 'also make it the current profile')
      .addHelpText('after', examples('billing profiles add prod --base-url https://api.example.com --api-key "$KEY" --use', 'billing profiles add test --db ~/billing/test.db', 'billing profiles add shared --db postgres://billing:secret@db.example.com/billing'))
      .action((name: string, _o: unknown, command: Command) =>
        invoke(command, async (deps) => {
          checkName(name);
          // --base-url, --api-key and --db are also global options; read them from either level.
          const opts = command.optsWithGlobals() as { baseUrl?: string; apiKey?: string; db?: string; use?: boolean };
          if (!opts.baseUrl && !opts.db) throw new UsageError('give --base-url URL (remote) or --db PATH|URL (embedded)');
          if (opts.db) parseLocation(opts.db);
          if (opts.baseUrl && !/^https?:\/\/[^/]+/i.test(opts.baseUrl)) throw new UsageError('--base-url must be an absolute http(s) URL');
          await updateConfig(deps.env, (config) => {
            config.profiles = { ...config.profiles, [name]: { base_url: opts.baseUrl, api_key: opts.apiKey, db: opts.db } };
            if (opts.use) config.current_profile = name;
          });
          if (!deps.globals.quiet) deps.io.err(`saved profile ${name}${opts.use ? ' (now current)' : ''} in ${configPath(deps.env)}\n`);
        }),
      );
  },
};

export const use: VerbModule = {
  configure(cmd: Command, invoke: Invoke) {
    cmd
      .argument('<name>', 'profile name')
      .addHelpText('after', examples('billing profiles use prod'))
      .action((name: string, _o: unknown, command: Command) =>
        invoke(command, async (deps) => {
          requireProfile(deps.env, name);
          await updateConfig(deps.env, (config) => {
            config.current_profile = name;
          });
          if (!deps.globals.quiet) deps.io.err(`using profile ${name}\n`);
        }),
      );
  },
};

export const remove: VerbModule = {
  configure(cmd: Command, invoke: Invoke) {
    cmd
      .argument('<name>', 'profile name')
      .addHelpText('after', examples('billing profiles remove old'))
      .action((name: string, _o: unknown, command: Command) =>
        invoke(command, async (deps) => {
          requireProfile(deps.env, name);
          await updateConfig(deps.env, (config) => {
            delete config.profiles![name];
            if (config.current_profile === name) delete config.current_profile;
          });
          if (!deps.globals.quiet) deps.io.err(`removed profile ${name}\n`);
        }),
      );
  },
};
