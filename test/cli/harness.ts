// Drives main() in process: argv in, exit code and exact stdout/stderr out, against a core on a
// temporary store at a fixed time. main() closes the core it was given, so every run opens a new
// one on the same store file.
import { main } from '../../src/cli.js';
import { memoryIO } from '../../src/lib/cli/io.js';
import type { Transport } from '../../src/lib/transport/types.js';
import type { Prompter } from '../../src/lib/prompts/prompter.js';
import { tempDbPath, tempDir, testCore } from '../helpers/store.js';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Standard input: text, or bytes (that need not be UTF-8). */
  stdin?: string | Uint8Array;
  tty?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Run main() without an injected core, so it opens the store itself (--db, --account, BILLING_DB). */
  real?: boolean;
  /** A person at a terminal answering through this prompter (tty on, prompting allowed). */
  prompter?: Prompter;
  /** The terminal's width (with tty). */
  columns?: number;
}

export interface Cli {
  dbPath: string;
  run(argv: string[], options?: RunOptions): Promise<RunResult>;
  /** A transport on the same store, at the same time, for setting up and checking; closed after fn. */
  withTransport<T>(fn: (transport: Transport) => Promise<T>): Promise<T>;
  /** Creates customers through the API, numbered from `from`; returns their ids. */
  seedCustomers(count: number, from?: number): Promise<string[]>;
  /** The number of customers of the default account. */
  customerCount(): Promise<number>;
}

export function cli(dbPath: string = tempDbPath()): Cli {
  const configDir = tempDir('billing-config-');
  const self: Cli = {
    dbPath,
    async run(argv, options = {}) {
      const tty = options.tty ?? (options.prompter ? true : undefined);
      const io = memoryIO({ stdin: options.stdin, tty, columns: options.columns });
      const asking = options.prompter ? { prompter: options.prompter, canPrompt: true } : {};
      // A config directory of its own, so a person's saved profiles and defaults never leak in.
      const env = { BILLING_CONFIG_DIR: configDir, ...options.env };
      let code: number;
      if (options.real) {
        code = await main(argv, io, env, asking);
      } else {
        const core = await testCore({ dbPath });
        try {
          code = await main(argv, io, env, { runtime: core, transport: core.transport, ...asking });
        } finally {
          await core.store.close();
        }
      }
      return { code, stdout: io.stdout, stderr: io.stderr };
    },
    async withTransport(fn) {
      const core = await testCore({ dbPath });
      try {
        return await fn(core.transport);
      } finally {
        await core.store.close();
      }
    },
    seedCustomers(count, from = 1) {
      return self.withTransport(async (t) => {
        const ids: string[] = [];
        for (let n = from; n < from + count; n++) {
          const response = await t.request({
            method: 'POST',
            path: '/customers',
            body: {
              data: {
                type: 'customer',
                attributes: { first_name: `First${n}`, last_name: `Last${n}`, email: `c${n}@example.com` },
              },
            },
          });
          if (response.status !== 201) throw new Error(`seeding customer ${n} answered ${response.status}`);
          ids.push((response.body as { data: { id: string } }).data.id);
        }
        return ids;
      });
    },
    customerCount() {
      return self.withTransport(
        async (t) =>
          ((await t.request({ method: 'GET', path: '/customers' })).body as { meta: { total: number } }).meta.total,
      );
    },
  };
  return self;
}

export const JAN = ['--first-name', 'Jan', '--last-name', 'Jansen', '--email', 'jan@example.com'];
