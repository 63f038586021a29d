// `billing completion bash|zsh|fish`: the shell's completion script on stdout. The commands, flags
// and values in it are read from the program with every verb configured, when this runs; only ids
// are asked for when Tab is pressed (`billing __complete`, ./complete.ts).
import { Argument, type Command } from 'commander';
import type { Deps } from '../../lib/command/deps.js';
import type { IO } from '../../lib/cli/io.js';
import { examples, prose, type Invoke, type VerbModule } from '../../lib/command/registry.js';
import { bashScript } from '../../lib/completion/bash.js';
import { fishScript } from '../../lib/completion/fish.js';
import { ID_DEADLINE_SECONDS, ID_LIMIT, MAX_DEADLINE_SECONDS } from '../../lib/completion/ids.js';
import { completionTree, type CompletionTree } from '../../lib/completion/tree.js';
import { zshScript } from '../../lib/completion/zsh.js';
import { enumerations } from './lists.js';

const SCRIPTS = { bash: bashScript, zsh: zshScript, fish: fishScript } satisfies Record<
  string,
  (tree: CompletionTree) => string
>;
export type Shell = keyof typeof SCRIPTS;
export const SHELLS = Object.keys(SCRIPTS) as Shell[];

export interface CompletionOptions {
  shell: Shell;
}

/** Writes the script of `options.shell` for `program` (every verb configured). */
export function run(options: CompletionOptions, deps: Pick<Deps, 'io'>, program: Command): void {
  deps.io.out(SCRIPTS[options.shell](completionTree(program, enumerations())));
}

/** The command; `buildAll` makes the program with every verb configured (cli.ts owns it). */
export function completionCommand(buildAll: (io: IO) => Promise<Command>): VerbModule {
  return {
    configure(cmd: Command, invoke: Invoke): void {
      cmd
        .addArgument(new Argument('<shell>', SHELLS.join(', ')).choices(SHELLS))
        .addHelpText(
          'after',
          prose(
            `Completes command groups, verbs and commands, flags, the values of flags that take one of a list (--status, --sort, -o), and ids: of customers, plans, subscriptions and invoices, for <id> and --customer-id, --subscription-plan-id, --subscription-id and the like. Ids are the newest ${ID_LIMIT}, read from the store or server the words already typed choose (--db, --base-url, --api-key, --profile, --account, or the environment and config); a missing store gives none and is never made. Reading them may take ${ID_DEADLINE_SECONDS} s at most, then nothing is offered; BILLING_COMPLETION_SECONDS=N (1 to ${MAX_DEADLINE_SECONDS}) allows N s, for a slow server or a busy machine. zsh and fish show what each id is. The script completes npx billing … too (ids through npx --offline --no-install billing), leaving any other npx line to npx's own completion. Run it again after upgrading billing.`,
          ),
        )
        .addHelpText(
          'after',
          examples(
            'source <(billing completion bash)',
            'billing completion bash > ~/.local/share/bash-completion/completions/billing',
            'billing completion zsh > "${fpath[1]}/_billing"',
            'billing completion fish > ~/.config/fish/completions/billing.fish',
          ),
        )
        .action((shell: Shell, _opts: unknown, command: Command) =>
          invoke(command, async (deps) => run({ shell }, deps, await buildAll(deps.io))),
        );
    },
  };
}
