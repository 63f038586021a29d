// `billing status`: where this command line points and what it finds there. The mode and the
// setting that chose it, the store or the server, the account, profile and clock, and a few counts
// read through the transport (the same requests in both modes). A server that does not answer, or
// refuses the key, is said in the status and then ends the command as any request would (3 or 4),
// so a script may use it as a health check.
import type { Command } from 'commander';
import type { Deps } from '../../lib/command/deps.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { send } from '../../lib/command/resource.js';
import type { Settings, Source } from '../../lib/config/settings.js';
import { ApiError, CliError } from '../../lib/cli/errors.js';
import { formatDateTime, safeText } from '../../lib/output/format.js';
import { renderPlain } from '../../lib/output/render.js';
import { displayWidth, pad } from '../../lib/output/text.js';
import type { EmbeddedStatus } from '../../lib/runtime/status.js';

export interface Status {
  mode: 'embedded' | 'remote';
  /** The setting that chose the mode, in words that name it. */
  chosen_by: string;
  store: { engine: string; location: string; exists: boolean } | null;
  server: { url: string; answers: boolean; status: number | null; ms: number | null; problem: string | null } | null;
  api_key: { shown: string; from: string } | null;
  account: string | null;
  profile: { name: string; chosen_by: string } | null;
  clock: { now: string; test: boolean; real: string; time_zone: string } | null;
  counts: { customers: number; active_subscriptions: number; open_invoices: number } | null;
  due_work: { waiting: number; next: string | null } | null;
}

const PROFILE_BY: Record<Source, string> = {
  flag: '--profile',
  env: 'BILLING_PROFILE',
  profile: '',
  config: 'current: billing profiles use',
  default: '',
};

/** The profile in words: "the current profile `far`", "profile `far` (--profile)". */
const profileWords = (settings: Settings): string =>
  settings.profileSource === 'config'
    ? `the current profile \`${settings.profile}\``
    : `profile \`${settings.profile}\` (${PROFILE_BY[settings.profileSource ?? 'flag']})`;

/** Which setting decided the mode: the one that names the server, or the store. */
export function chosenBy(settings: Settings): string {
  if (settings.mode === 'remote') {
    switch (settings.baseUrlSource) {
      case 'flag':
        return '--base-url';
      case 'env':
        return 'BILLING_BASE_URL';
      case 'profile':
        return `${profileWords(settings)} sets a base URL`;
      default:
        return 'the config default base_url (billing config set base_url)';
    }
  }
  switch (settings.dbSource) {
    case 'flag':
      return '--db';
    case 'env':
      return 'BILLING_DB';
    case 'profile':
      return `${profileWords(settings)} sets a store`;
    case 'config':
      return 'the config default db (billing config set db)';
    default:
      return 'nothing names a server or a store: the default store';
  }
}

const KEY_FROM: Record<Source, string> = {
  flag: '--api-key',
  env: 'BILLING_API_KEY',
  profile: 'the profile',
  config: 'the config default api_key',
  default: '',
};

/** A key as it may be shown: its kind and last four characters (`bk_…a1b2`), never more. */
export const shownKey = (key: string): string => {
  const prefix = /^[a-z]{1,8}_/i.exec(key)?.[0] ?? '';
  return `${prefix}…${key.length > prefix.length + 8 ? key.slice(-4) : ''}`;
};

async function counts(deps: Deps): Promise<NonNullable<Status['counts']>> {
  const total = async (path: string, query: Record<string, string | number> = {}) =>
    (
      (await send(deps, { method: 'GET', path, query: { 'page[size]': 1, ...query } })).body as {
        meta: { total: number };
      }
    ).meta.total;
  return {
    customers: await total('/customers'),
    active_subscriptions: await total('/subscriptions', { 'filter[status]': 'active' }),
    open_invoices: await total('/invoices', { 'filter[status]': 'open' }),
  };
}

export async function run(deps: Deps): Promise<void> {
  const settings = deps.settings;
  const status: Status = {
    mode: settings.mode,
    chosen_by: chosenBy(settings),
    store: null,
    server: null,
    api_key: null,
    account: null,
    profile: settings.profile
      ? { name: settings.profile, chosen_by: PROFILE_BY[settings.profileSource ?? 'flag'] }
      : null,
    clock: null,
    counts: null,
    due_work: null,
  };
  let failure: Error | undefined;
  if (settings.mode === 'remote') {
    status.server = { url: settings.baseUrl!, answers: false, status: null, ms: null, problem: null };
    if (settings.apiKey)
      status.api_key = {
        shown: shownKey(settings.apiKey),
        from:
          settings.apiKeySource === 'profile'
            ? `profile \`${settings.profile}\``
            : KEY_FROM[settings.apiKeySource ?? 'flag'],
      };
    const started = performance.now();
    try {
      status.counts = await counts(deps);
      Object.assign(status.server, { answers: true, status: 200, ms: Math.round(performance.now() - started) });
    } catch (error) {
      failure = error as Error;
      const answered = (error as { status?: number }).status;
      Object.assign(status.server, {
        answers: typeof answered === 'number',
        status: typeof answered === 'number' ? answered : null,
        problem: answered === 401 ? 'the API key is refused (401)' : (error as Error).message,
      });
    }
  } else {
    let embedded: EmbeddedStatus | undefined;
    try {
      const runtime = await deps.runtime('status', { write: false });
      const { embeddedStatus } = await import('../../lib/runtime/status.js');
      embedded = await embeddedStatus(runtime);
    } catch (error) {
      // No store yet: what would be made, and nothing to count.
      if ((error as Error).name !== 'StoreMissingError') throw error;
      // As the store would name itself: the engine its location says, a password never shown.
      const { parseLocation, redact } = await import('../../lib/runtime/locations.js');
      status.store = {
        engine: parseLocation(settings.dbPath).engine,
        location: redact(settings.dbPath),
        exists: false,
      };
    }
    if (embedded) {
      status.store = { engine: embedded.engine, location: embedded.location, exists: true };
      status.account = embedded.account;
      status.clock = { ...embedded.clock, time_zone: embedded.timeZone };
      status.due_work = embedded.due;
      status.counts = await counts(deps);
    }
  }
  await print(deps, status);
  if (failure === undefined) return;
  // The status printed as JSON already holds the refusal: a second document (the error's) would
  // make stdout two documents no script can parse. Its exit code stays; its words go to stderr.
  if (failure instanceof ApiError && (deps.globals.output !== 'table' || deps.globals.query !== undefined))
    throw new CliError(`${status.server!.url}: ${status.server!.problem}`, failure.exitCode);
  throw failure;
}

const when = (iso: string): string => formatDateTime(iso) ?? iso;

function lines(status: Status): [string, string][] {
  const rows: [string, string][] = [['mode', `${status.mode} (${status.chosen_by})`]];
  if (status.store)
    rows.push([
      'store',
      `${status.store.location} (${status.store.engine}${status.store.exists ? '' : '; not made yet: the first command that writes makes it'})`,
    ]);
  if (status.server) {
    const s = status.server;
    rows.push([
      'server',
      s.answers && s.problem === null
        ? `${s.url} (answers: ${s.status} in ${s.ms} ms)`
        : `${s.url} (${s.answers ? 'answers, but ' : 'does not answer: '}${s.problem})`,
    ]);
    rows.push(['API key', status.api_key ? `${status.api_key.shown} (from ${status.api_key.from})` : 'none']);
  }
  rows.push(['account', status.account ?? (status.mode === 'remote' ? "the API key's" : 'none yet')]);
  rows.push(['profile', status.profile ? `${status.profile.name} (${status.profile.chosen_by})` : 'none']);
  if (status.clock)
    rows.push([
      'clock',
      status.clock.test
        ? `test time ${when(status.clock.now)} (real time ${when(status.clock.real)})`
        : `real time ${when(status.clock.now)}`,
    ]);
  if (status.counts) {
    rows.push(['customers', String(status.counts.customers)]);
    rows.push(['active subscriptions', String(status.counts.active_subscriptions)]);
    rows.push(['open invoices', String(status.counts.open_invoices)]);
  }
  if (status.due_work)
    rows.push([
      'due work',
      `${status.due_work.waiting} waiting${status.due_work.next ? `; next at ${when(status.due_work.next)}` : '; none planned'}`,
    ]);
  return rows;
}

function print(deps: Deps, status: Status): Promise<void> {
  return renderPlain(status as unknown as Record<string, unknown>, deps.globals, deps.io, () => {
    const rows = lines(status);
    if (!deps.io.stdoutIsTTY)
      return Promise.resolve(rows.map(([label, value]) => safeText(`${label}\t${value}\n`)).join(''));
    const width = Math.max(...rows.map(([label]) => displayWidth(label)));
    return Promise.resolve(rows.map(([label, value]) => safeText(`${pad(label, width)}  ${value}\n`)).join(''));
  });
}

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .addHelpText(
      'after',
      prose(
        'Shows the mode and the setting that chose it, the store or the server (and whether it answers, with which key), the account, profile and clock, and counts of customers, active subscriptions, open invoices and due work. A server that does not answer ends it with exit 3, a refused key with 4.',
      ),
    )
    .addHelpText('after', examples('billing status', 'billing status --json', 'billing --profile prod status'))
    .action((_opts: unknown, command: Command) => invoke(command, (deps) => run(deps)));
}
