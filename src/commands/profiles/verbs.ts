// billing profiles list|add|use|remove. Keys live only in the config file (mode 0600), never in
// output. Every change is one locked read-modify-write of the file (see lib/config/file.ts); the
// existence checks are made again inside it, so a profile another process changed meanwhile is
// never overwritten unasked.
import type { Command } from 'commander';
import {
  configPath,
  emptyRecord,
  own,
  readConfig,
  updateConfig,
  type ConfigFile,
  type ProfileEntry,
} from '../../lib/config/file.js';
import { isSendableKey, unsendableKey } from '../../lib/transport/keys.js';
import { confirmAction, DeclinedError } from '../../lib/command/confirm.js';
import type { Deps } from '../../lib/command/deps.js';
import { UsageError } from '../../lib/cli/errors.js';
import type { Invoke, VerbModule } from '../../lib/command/registry.js';
import { examples } from '../../lib/command/registry.js';
import { parseLocation, redact } from '../../lib/runtime/locations.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

function checkName(name: string): string {
  if (!NAME.test(name)) throw new UsageError(`profile names are 1 to 63 letters, digits, _ . or -, not "${name}"`);
  return name;
}

const noProfile = (name: string) => new UsageError(`no profile named "${name}" (see: billing profiles list)`);

/** The profile of that name in the file, never one of Object's own properties ("constructor"). */
const profileOf = (config: ConfigFile, name: string): ProfileEntry | undefined => own(config.profiles, name);

function requireProfile(env: NodeJS.ProcessEnv, name: string): ProfileEntry {
  const profile = profileOf(readConfig(env), name);
  if (!profile) throw noProfile(name);
  return profile;
}

/** A profile as people see it: keys hidden, database passwords as ***. */
const shownProfile = (name: string, p: ProfileEntry, current: boolean) => ({
  name,
  base_url: p.base_url === undefined ? null : redact(p.base_url),
  api_key: p.api_key ? '(set, hidden)' : null,
  db: p.db === undefined ? null : redact(p.db),
  current,
});

/** --dry-run: what would change, as one JSON document on stdout; nothing is written. */
const printDryRun = (deps: Deps, document: Record<string, unknown>): void =>
  deps.io.out(`${JSON.stringify({ dry_run: true, ...document }, null, 2)}\n`);

export const list: VerbModule = {
  configure(cmd: Command, invoke: Invoke) {
    cmd
      .addHelpText('after', examples('billing profiles list', 'billing profiles list --json'))
      .action((_o: unknown, command: Command) =>
        invoke(command, async (deps) => {
          const config = readConfig(deps.env);
          const rows = Object.entries(config.profiles ?? {}).map(([name, p]) =>
            shownProfile(name, p, config.current_profile === name),
          );
          if (deps.globals.output === 'json') {
            deps.io.out(`${JSON.stringify(rows, null, 2)}\n`);
            return;
          }
          if (rows.length === 0) {
            deps.io.err('no profiles (add one: billing profiles add NAME --base-url URL --api-key KEY)\n');
            return;
          }
          const { listTable, viewOf } = await import('../../lib/output/table.js');
          deps.io.out(
            await listTable(
              rows.map(({ name, ...attributes }) => ({ type: 'profile', id: name, attributes })),
              'profile',
              viewOf(deps.globals, deps.io),
            ),
          );
        }),
      );
  },
};

export const add: VerbModule = {
  configure(cmd: Command, invoke: Invoke) {
    cmd
      .argument('<name>', 'profile name')
      .option('--base-url <url>', 'the service (remote mode)')
      .option('--api-key <key>', 'its API key (stored in the config file, mode 0600; sent only to this base URL)')
      .option('--api-key-stdin', 'read the API key from standard input (it stays out of the shell history)')
      .option('--no-key', 'save a remote profile without an API key (its server asks for none)')
      .option('--db <path|url>', 'an embedded store instead: a SQLite file or a postgres:// URL')
      .option('--use', 'also make it the current profile')
      .option('--force', 'replace a profile of the same name without asking')
      .addHelpText(
        'after',
        examples(
          'billing profiles add prod --base-url https://api.example.com --use   # asks for the key, unseen',
          'pass show billing/prod | billing profiles add prod --base-url https://api.example.com --api-key-stdin',
          'billing profiles add test --db ~/billing/test.db',
          'billing profiles add shared --db postgres://billing:secret@db.example.com/billing',
          'billing profiles add prod --base-url https://api2.example.com --api-key "$KEY" --force',
        ),
      )
      .action((name: string, _o: unknown, command: Command) =>
        invoke(command, async (deps) => {
          checkName(name);
          // --base-url, --api-key and --db are also global options; read them from either level.
          const opts = command.optsWithGlobals<{
            baseUrl?: string;
            apiKey?: string;
            apiKeyStdin?: boolean;
            key: boolean;
            db?: string;
            use?: boolean;
            force?: boolean;
          }>();
          if (!opts.baseUrl && !opts.db)
            throw new UsageError('give --base-url URL (remote) or --db PATH|URL (embedded)');
          if (opts.baseUrl && opts.db)
            throw new UsageError('a profile is remote (--base-url) or embedded (--db), not both: give one of them');
          if (opts.db) parseLocation(opts.db);
          if (opts.baseUrl && !/^https?:\/\/[^/]+/i.test(opts.baseUrl))
            throw new UsageError('--base-url must be an absolute http(s) URL');
          if (opts.apiKeyStdin && opts.apiKey !== undefined)
            throw new UsageError('give the API key one way: --api-key KEY or --api-key-stdin');
          if (!opts.key && (opts.apiKey !== undefined || opts.apiKeyStdin))
            throw new UsageError(
              '--no-key says the profile has no API key: drop --api-key / --api-key-stdin, or --no-key',
            );
          if (opts.db && (opts.apiKeyStdin || !opts.key))
            throw new UsageError(
              `${opts.apiKeyStdin ? '--api-key-stdin' : '--no-key'} goes with --base-url: an embedded profile has no API key`,
            );
          if (opts.apiKey) {
            if (!opts.baseUrl)
              throw new UsageError(
                '--api-key goes with --base-url: the key of an embedded profile would never be sent',
              );
            if (!isSendableKey(opts.apiKey)) throw new UsageError(unsendableKey('from --api-key'));
          }
          const existing = profileOf(readConfig(deps.env), name);
          // Asked (or read) once the config file is known to be readable: a broken one is the first thing said.
          if (opts.baseUrl && opts.key && opts.apiKey === undefined) opts.apiKey = await keyFor(deps, opts);
          const entry: ProfileEntry = opts.baseUrl
            ? { base_url: opts.baseUrl.replace(/\/+$/, ''), ...(opts.apiKey ? { api_key: opts.apiKey } : {}) }
            : { db: opts.db };
          if (deps.globals.dryRun) {
            printDryRun(deps, {
              would: `${existing ? 'replace' : 'add'} profile ${name}`,
              profile: shownProfile(name, entry, Boolean(opts.use)),
            });
            return;
          }
          const replace = existing !== undefined && (await confirmReplace(deps, name, existing, Boolean(opts.force)));
          await updateConfig(deps.env, (config) => {
            const profiles = (config.profiles ??= emptyRecord());
            // Made by another process since the question (or its absence): not replaced unasked.
            if (Object.hasOwn(profiles, name) && !replace) throw exists(name);
            profiles[name] = entry;
            if (opts.use) config.current_profile = name;
          });
          if (!deps.globals.quiet)
            deps.io.err(
              `${replace ? 'replaced' : 'saved'} profile ${name}${opts.use ? ' (now current)' : ''} in ${configPath(deps.env)}\n`,
            );
        }),
      );
  },
};

/**
 * The key of a remote profile given no --api-key: read from standard input (--api-key-stdin), or
 * asked on a terminal unseen; otherwise refused, since a saved profile without its key fails later,
 * far from here (--no-key says the server needs none).
 */
async function keyFor(deps: Deps, opts: { apiKeyStdin?: boolean; baseUrl?: string }): Promise<string> {
  const problem = (key: string) =>
    key === '' ? 'the API key is empty' : isSendableKey(key) ? true : unsendableKey('typed');
  if (opts.apiKeyStdin) {
    const key = (await deps.io.readStdin()).toString('utf8').split(/\r?\n/, 1)[0].trim();
    const verdict = problem(key);
    if (verdict !== true) throw new UsageError(`--api-key-stdin: ${verdict}`);
    return key;
  }
  if (!deps.canPrompt)
    throw new UsageError(
      `a remote profile needs its API key: give --api-key KEY or --api-key-stdin, or --no-key when ${opts.baseUrl} asks for none`,
    );
  return deps.prompter.password({ message: `API key for ${opts.baseUrl}:`, validate: problem });
}

const exists = (name: string) => new UsageError(`a profile named "${name}" exists already: add --force to replace it`);

/** Replacing a profile: --force (or --yes) says so; on a terminal a person is asked; otherwise exit 2. */
async function confirmReplace(deps: Deps, name: string, existing: ProfileEntry, force: boolean): Promise<boolean> {
  if (force || deps.globals.yes) return true;
  if (!deps.canPrompt) throw exists(name);
  const what =
    existing.base_url === undefined
      ? existing.db === undefined
        ? ''
        : ` (${redact(existing.db)})`
      : ` (${redact(existing.base_url)}${existing.api_key ? ', with an API key' : ''})`;
  if (!(await deps.prompter.confirm({ message: `Profile ${name}${what} exists already. Replace it?`, default: false })))
    throw new DeclinedError(`replace profile ${name}`);
  return true;
}

export const use: VerbModule = {
  configure(cmd: Command, invoke: Invoke) {
    cmd
      .argument('<name>', 'profile name')
      .addHelpText('after', examples('billing profiles use prod'))
      .action((name: string, _o: unknown, command: Command) =>
        invoke(command, async (deps) => {
          requireProfile(deps.env, name);
          if (deps.globals.dryRun) {
            printDryRun(deps, { would: `make profile ${name} the current profile`, current_profile: name });
            return;
          }
          await updateConfig(deps.env, (config) => {
            if (!profileOf(config, name)) throw noProfile(name); // removed meanwhile
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
      .addHelpText(
        'after',
        examples('billing profiles remove old', 'billing profiles remove old --yes   # without asking (scripts)'),
      )
      .action((name: string, _o: unknown, command: Command) =>
        invoke(command, async (deps) => {
          const profile = requireProfile(deps.env, name);
          if (deps.globals.dryRun) {
            printDryRun(deps, {
              would: `remove profile ${name}`,
              profile: shownProfile(name, profile, readConfig(deps.env).current_profile === name),
            });
            return;
          }
          const where =
            profile.base_url === undefined
              ? profile.db === undefined
                ? ''
                : ` (${redact(profile.db)})`
              : ` (${redact(profile.base_url)})`;
          await confirmAction(
            deps,
            `remove profile ${name}`,
            `Remove profile ${name}${where}${profile.api_key ? ' and its saved API key' : ''}? This cannot be undone.`,
          );
          await updateConfig(deps.env, (config) => {
            if (!profileOf(config, name)) throw noProfile(name); // removed meanwhile
            delete config.profiles![name];
            if (config.current_profile === name) delete config.current_profile;
          });
          if (!deps.globals.quiet) deps.io.err(`removed profile ${name}\n`);
        }),
      );
  },
};
