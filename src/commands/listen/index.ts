// `billing listen`: events printed as they happen, until Ctrl-C or SIGTERM (exit 130). It polls GET /events
// with page[after] through the transport, so it is written once for both doors: embedded, each
// poll is a read transaction of its own and so sees what other processes committed since (WAL);
// remote, any server that pages events by id. --forward-to posts each event to a receiver as its
// webhook delivery would be.
import type { Command } from 'commander';
import type { Deps } from '../../lib/command/deps.js';
import { InterruptedError, UsageError } from '../../lib/cli/errors.js';
import type { Interruption } from '../../lib/cli/io.js';
import { examples, prose, type Invoke } from '../../lib/command/registry.js';
import { afterId, send } from '../../lib/command/resource.js';
import type { ResourceLike } from '../../lib/output/columns.js';
import { oneLine, safeText } from '../../lib/output/format.js';
import type { Painter } from '../../lib/output/paint.js';
import { pageFormat, type Document } from '../../lib/output/render.js';
import type { ForwardedEvent } from '../../lib/runtime/forward.js';
import { textOf } from '../../lib/schemas/json.js';
import { MAX_PAGE_SIZE } from '../../lib/schemas/vocabulary.js';
import { EVENT } from '../events/index.js';
import { idFilter } from '../subscriptions/find.js';

/** Time between two looks: the embedded store is one indexed read away; a server is asked less often. */
export const EMBEDDED_INTERVAL_MS = 500;
export const REMOTE_INTERVAL_MS = 2_000;
const MAX_INTERVAL_S = 3_600;

/**
 * How long an id passed over stays worth looking for. On PostgreSQL, writers running at once take
 * ids in one order and may commit in another: an event can appear after one with a greater id was
 * printed. Every poll asks again from the last id all of whose predecessors have had this long to
 * appear. SQLite's writers commit one after another, in id order, so there it only costs re-reads.
 */
export const LATE_MS = 10_000;
/** How often an idle listen asks whether the store's events went back (a restore, a reset). */
export const RESTART_CHECK_MS = 5_000;

export interface ListenOptions {
  /** Start after this id (replaying what came since); default: the newest event at launch. */
  after?: number;
  /** filter[subscription_id]. */
  subscriptionId?: string;
  intervalMs?: number;
  forwardTo?: string;
  secret?: string;
}

export interface ListenFlags {
  after?: string;
  subscriptionId?: string;
  interval?: string;
  forwardTo?: string;
  secret?: string;
}

/** Flags to options; bad values are usage errors, found before anything is read or sent. */
export function parseListenOptions(flags: ListenFlags): ListenOptions {
  const options: ListenOptions = {
    after: afterId(flags.after),
    subscriptionId: idFilter(flags.subscriptionId, '--subscription-id'),
  };
  if (flags.interval !== undefined) {
    const seconds = Number(flags.interval);
    if (!/^\d+(\.\d+)?$/.test(flags.interval.trim()) || seconds < 0.1 || seconds > MAX_INTERVAL_S)
      throw new UsageError(
        `--interval must be a number of seconds from 0.1 to ${MAX_INTERVAL_S}, not "${flags.interval}"`,
      );
    options.intervalMs = Math.round(seconds * 1000);
  }
  if (flags.forwardTo !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(flags.forwardTo);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      throw new UsageError(
        `--forward-to must be an absolute http(s) URL, e.g. http://localhost:3000/webhooks, not "${flags.forwardTo}"`,
      );
    options.forwardTo = url.href;
  }
  if (flags.secret !== undefined) {
    if (flags.forwardTo === undefined) throw new UsageError('--secret signs what --forward-to sends: give both');
    if (flags.secret === '') throw new UsageError('--secret must not be empty');
    options.secret = flags.secret;
  }
  return options;
}

/**
 * The events printed, and the id to ask again after. Ids are settled once every id below the
 * greatest seen has had LATE_MS to appear; above that, what was printed is remembered so a re-read
 * prints nothing twice. Memory holds the ids of LATE_MS, whatever the length of the run.
 */
export class Seen {
  private floor: number;
  private readonly ids = new Set<number>();
  /** When the greatest id seen rose, and to what: the ids below it were passed over then. */
  private readonly rises: { id: number; at: number }[] = [];
  private greatest: number;

  constructor(
    after: number,
    private readonly lateMs = LATE_MS,
  ) {
    this.floor = after;
    this.greatest = after;
  }

  /** Ask for the events after this id. */
  get after(): number {
    return this.floor;
  }

  /** The greatest id printed (or started after): where a run to come goes on from. */
  get last(): number {
    return this.greatest;
  }

  /** Whether the event is one not printed yet; it counts as printed from now on. */
  add(id: number, now: number): boolean {
    if (id <= this.floor || this.ids.has(id)) return false;
    this.ids.add(id);
    if (id > this.greatest) {
      this.greatest = id;
      this.rises.push({ id, at: now });
    }
    return true;
  }

  /** Moves the floor past what has had its time to appear, forgetting the ids below it. */
  settle(now: number): void {
    while (this.rises.length > 0 && this.rises[0].at <= now - this.lateMs) this.floor = this.rises.shift()!.id;
    for (const id of this.ids) if (id <= this.floor) this.ids.delete(id);
  }
}

/** "2026-12-01 14:03:07 +01:00" from the time the service wrote; anything else as it is. */
function moment(value: unknown): string {
  const text = textOf(value ?? '');
  const match = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(?:\.\d+)?(Z|[+-]\d\d:\d\d)$/.exec(text);
  return match ? `${match[1]} ${match[2]} ${match[3] === 'Z' ? '+00:00' : match[3]}` : oneLine(text);
}

/** The longest event name (transaction.charged_back), so the columns after it line up. */
const EVENT_WIDTH = 24;

/**
 * One event as a line: on a terminal `time  #id  event  subscription 7  transaction <id>`, the event
 * coloured by its status; otherwise tab-separated fields (time as written, id, event, subscription,
 * transaction), for cut and awk.
 */
export function eventLine(event: ResourceLike, tty: boolean, paint?: Painter): string {
  const a = event.attributes ?? {};
  const text = (value: unknown) => (value === null || value === undefined ? '' : oneLine(textOf(value)));
  if (!tty) return [a.occurred_at, event.id, a.event, a.subscription_id, a.transaction_id].map(text).join('\t');
  const name = text(a.event).padEnd(EVENT_WIDTH);
  return [
    moment(a.occurred_at),
    `#${text(event.id)}`,
    paint ? paint.state(text(a.status), name) : name,
    `subscription ${text(a.subscription_id)}`,
    a.transaction_id ? `transaction ${text(a.transaction_id)}` : '',
  ]
    .join('  ')
    .trimEnd();
}

/** Prints one event in the chosen format: a line, NDJSON (--json, -o ndjson) or CSV (a header first). */
async function printer(deps: Deps): Promise<(event: ResourceLike) => Promise<void> | void> {
  const { io, globals } = deps;
  const write = (text: string) => (io.write ? io.write(text) : io.out(text));
  if (globals.output !== 'table') {
    const format = await pageFormat(globals.output === 'csv' ? 'csv' : 'ndjson', globals.csvRaw);
    return (event) => write(format.page([event]));
  }
  const paint = globals.color ? (await import('../../lib/output/paint.js')).painter() : undefined;
  return (event) => write(`${eventLine(event, io.stdoutIsTTY, paint)}\n`);
}

/**
 * The secret --forward-to signs with, asked for before each page of events: --secret, else the
 * embedded account's own as it is then (a rotated secret signs from the next page on, as deliveries do).
 */
async function forwardSecret(options: ListenOptions, deps: Deps): Promise<() => Promise<string>> {
  if (options.secret !== undefined) {
    const secret = options.secret;
    return () => Promise.resolve(secret);
  }
  if (deps.settings.mode === 'remote')
    throw new UsageError(
      "--forward-to against a server needs --secret: the account's webhook secret (webhook_secret in billing accounts show NAME --json, run on the server's store); the API does not give it",
    );
  const { webhookSecret } = await import('../../lib/runtime/accounts.js');
  const runtime = await deps.runtime('billing listen --forward-to', { write: false });
  return () => webhookSecret(runtime);
}

/** Waits ms, or less when the signal is aborted. */
const pause = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
    if (signal.aborted) done();
  });

/** Prints events as they come, until interrupted: exit 130 after Ctrl-C, quietly when the reader of stdout goes. */
export async function run(options: ListenOptions, deps: Deps): Promise<void> {
  const { io, globals } = deps;
  if (globals.query !== undefined)
    throw new UsageError('billing listen prints events as they come and takes no --query: pipe --json into jq');
  const intervalMs =
    options.intervalMs ?? (deps.settings.mode === 'remote' ? REMOTE_INTERVAL_MS : EMBEDDED_INTERVAL_MS);
  const forward =
    options.forwardTo === undefined
      ? undefined
      : {
          url: options.forwardTo,
          secret: await forwardSecret(options, deps),
          send: (await import('../../lib/runtime/forward.js')).forwardEvent,
        };
  const find = { 'filter[subscription_id]': options.subscriptionId };
  const print = await printer(deps);

  const stop = new AbortController();
  let interrupted: Interruption | undefined;
  const stopListening = io.onInterrupt?.((cause) => {
    interrupted ??= cause;
    stop.abort(new InterruptedError());
  });
  const { signal } = stop;
  let count = 0;
  let seen: Seen | undefined;
  try {
    const newestId = async (): Promise<number> => {
      const newest = await send(deps, {
        method: 'GET',
        path: EVENT.path,
        query: { ...find, sort: '-id', 'page[size]': 1 },
        signal,
      });
      return Number(((newest.body as Document).data as ResourceLike[] | undefined)?.[0]?.id ?? 0);
    };
    const start = options.after ?? (await newestId());
    seen = new Seen(start);
    // The greatest id the store is known to have held; found above its newest, the store was replaced.
    let known = options.after === undefined ? start : 0;
    let checkedAt = Date.now();
    if (!globals.quiet)
      io.err(
        safeText(
          `listening for events after id ${start}${forward ? `, forwarding each to ${forward.url}` : ''} (Ctrl-C to stop)\n`,
        ),
      );
    while (!signal.aborted) {
      const now = Date.now();
      seen.settle(now);
      let found = 0;
      for (let after = seen.after; !signal.aborted;) {
        const response = await send(deps, {
          method: 'GET',
          path: EVENT.path,
          query: { ...find, sort: 'id', 'page[after]': after, 'page[size]': MAX_PAGE_SIZE },
          signal,
        });
        const page = ((response.body as Document).data ?? []) as ResourceLike[];
        const secret = forward && page.length > 0 ? await forward.secret() : '';
        found += page.length;
        for (const event of page) {
          known = Math.max(known, Number(event.id));
          if (!seen.add(Number(event.id), now)) continue;
          await print(event);
          count++;
          if (forward) {
            const result = await forward.send(
              forward.url,
              secret,
              event.attributes as unknown as ForwardedEvent,
              signal,
            );
            if (signal.aborted) break;
            if ('error' in result)
              io.err(safeText(`warning: event ${event.id} not forwarded to ${forward.url}: ${result.error}\n`));
            else if (!globals.quiet || result.status < 200 || result.status > 299)
              io.err(safeText(`event ${event.id} -> ${result.status}\n`));
          }
        }
        if (page.length < MAX_PAGE_SIZE) break;
        after = Number(page[page.length - 1].id);
      }
      // A store restored from a snapshot, or reset, numbers its events again from below where this
      // listen is: asked after that id, it would print nothing ever again. Looked at while idle.
      if (found === 0 && !signal.aborted && now - checkedAt >= RESTART_CHECK_MS) {
        checkedAt = now;
        const newest = await newestId();
        if (newest < known) {
          io.err(
            `warning: the store's events now end at id ${newest}, below id ${known} seen before (it was restored or reset): listening for events after id ${newest}; those it made since are in billing events list\n`,
          );
          seen = new Seen(newest);
          known = newest;
        }
      }
      await pause(intervalMs, signal);
    }
  } catch (error) {
    // A request cut short by Ctrl-C ends like the wait between two.
    if (!signal.aborted) throw error;
  } finally {
    stopListening?.();
  }
  if (interrupted === 'pipe') return;
  if (!globals.quiet && seen !== undefined && count > 0)
    io.err(
      `stopped after ${count} ${count === 1 ? 'event' : 'events'}; to go on from there, run it again with --after ${seen.last}\n`,
    );
  throw new InterruptedError();
}

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .option(
      '--after <id>',
      'first print the events after this id (0: every one), then the new ones (default: only those that happen from now on)',
    )
    .option('--subscription-id <n>', "only this subscription's events (its own and its transactions')")
    .option(
      '--interval <seconds>',
      `time between two looks for new events (default ${EMBEDDED_INTERVAL_MS / 1000} on the embedded store, ${REMOTE_INTERVAL_MS / 1000} against a server)`,
    )
    .option(
      '--forward-to <url>',
      'also POST each event to this http(s) URL, with the body, headers and signature of its webhook delivery',
    )
    .option(
      '--secret <secret>',
      "with --forward-to: sign with this secret (default: the embedded account's webhook secret; needed against a server)",
    )
    .addHelpText(
      'after',
      prose(
        'Prints every event (a status change of a subscription or a transaction) as it happens, one line each, or one JSON object per line with --json (NDJSON). It follows the embedded store, written to by other processes too, or a server (--base-url), looking for new events every --interval. Ctrl-C (or SIGTERM) stops it, with exit code 130, and says which --after goes on from there.',
      ),
    )
    .addHelpText(
      'after',
      prose(
        "--forward-to sends each event to a receiver on your machine as a webhook delivery, so it can be tested without a tunnel: a POST with Billing-Event, a fresh Billing-Delivery and Billing-Signature, signed with the account's webhook secret (see docs/webhooks.md). The receiver's answer is printed on stderr (event 12 -> 200); one that fails is reported and listening goes on. Nothing is recorded or retried.",
      ),
    )
    .addHelpText(
      'after',
      examples(
        'billing listen',
        'billing listen --json | jq -r .attributes.event',
        'billing listen --after 0 --subscription-id 7   # what happened to subscription 7, then what happens',
        'billing listen --forward-to http://localhost:3000/webhooks',
        'billing listen --base-url https://billing.example.com --api-key KEY --forward-to http://localhost:3000/webhooks --secret "$WEBHOOK_SECRET"',
      ),
    )
    .action((flags: ListenFlags, command: Command) => invoke(command, (deps) => run(parseListenOptions(flags), deps)));
}
