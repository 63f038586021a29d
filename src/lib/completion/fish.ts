// The fish completion script: one `complete` whose candidates come from a walk over the command
// line (as cobra's scripts do), rather than a condition per flag that fish would run at every key.
// The same under npx, as a completion of npx's with a condition: fish adds it to npx's others.
import {
  argValues,
  fishQuote,
  flagValues,
  globalValues,
  DEFAULT_SECONDS,
  MAX_SECONDS,
  pathOf,
  varArg,
} from './shells.js';
import type { CompletionTree, FlagSpec } from './tree.js';
import { NPX_RUN, NPX_VALUED } from './npx.js';

/** name<TAB>description, as fish shows a candidate. */
const described = (name: string, description: string): string => `${fishQuote(name)}\\t${fishQuote(description)}`;
const flagEntries = (flags: FlagSpec[]): string =>
  flags.flatMap((flag) => flag.names.map((name) => described(name, flag.description))).join(' ');

export function fishScript(tree: CompletionTree): string {
  const p = `__${tree.name}`;
  // fish's switch takes a value starting with - for an option of its own: every key starts with x.
  const cases = (entries: [string, string][], indent: string) =>
    entries
      .map(([key, value]) => `${indent}case ${fishQuote(`x${key}`)}\n${indent}    echo ${fishQuote(value)}`)
      .join('\n');
  const nodes = tree.nodes
    .map((node) =>
      [
        `        case ${fishQuote(`x${pathOf(node)}`)}`,
        `            set -g ${p}_cmds ${node.commands.map((c) => described(c.name, c.description)).join(' ')}`,
        `            set -g ${p}_flags ${flagEntries(node.flags)}`,
        `            set -g ${p}_vararg ${varArg(node)}`,
      ].join('\n'),
    )
    .join('\n');

  return `# fish completion for ${tree.name}, written by \`${tree.name} completion fish\`: do not edit, write it again.
# Now:          ${tree.name} completion fish | source
# Every shell:  ${tree.name} completion fish > ~/.config/fish/completions/${tree.name}.fish
# (and the same file as npx.fish there, for \`npx ${tree.name}\`: fish loads a file by the command's name)

# The command at PATH ("customers list"): its subcommands and flags, as name<TAB>description.
function ${p}_node --argument-names path
    set -g ${p}_cmds
    set -g ${p}_flags
    set -g ${p}_vararg -1
    switch "x$path"
${nodes}
    end
end

set -g ${p}_globals ${flagEntries(tree.globals)}

# What FLAG takes after PATH: w:WORDS, i:KIND (ids), f (files), a (anything); nothing for a switch.
function ${p}_value --argument-names path flag
    switch "x$path $flag"
${cases(flagValues(tree), '        ')}
        case '*'
            switch "x$flag"
${cases(globalValues(tree), '                ')}
            end
    end
end

# Whether FLAG takes a value after PATH (fish before 3.4 has no "$(…)").
function ${p}_takes --argument-names path flag
    set -l spec (${p}_value "$path" $flag)
    test -n "$spec"
end

# What argument INDEX (from 0) of PATH takes.
function ${p}_arg --argument-names path index
    switch "x$path $index"
${cases(argValues(tree), '        ')}
        case '*'
            echo a
    end
end

# A flag choosing the store or server, kept for the ids.
function ${p}_keep --argument-names flag value
    contains -- $flag ${tree.context.join(' ')}; or return
    string match -q -- '~/*' $value; and set value $HOME/(string sub -s 3 -- $value)
    set -ga ${p}_context $flag $value
end

# The program as typed (under npx: the ${tree.name} npx has, never one fetched), with the flags
# kept, bounded in time even if it hangs.
function ${p}_run
    set -l bin $${p}_bin
    string match -q -- '~/*' $bin; and set bin $HOME/(string sub -s 3 -- $bin)
    test $${p}_at -gt 1; and set -a bin ${NPX_RUN} ${tree.name}
    set -l s ${DEFAULT_SECONDS}
    if string match -qr '^[1-9][0-9]?$' -- "$BILLING_COMPLETION_SECONDS"; and test "$BILLING_COMPLETION_SECONDS" -le ${MAX_SECONDS}
        set s $BILLING_COMPLETION_SECONDS
    end
    if command -sq timeout
        timeout (math $s + 1) $bin $${p}_context $argv </dev/null
    else
        $bin $${p}_context $argv </dev/null
    end
end

# The candidates for SPEC (from ${p}_value or ${p}_arg), each with PREFIX (--flag=) before it.
function ${p}_values --argument-names spec prefix cur
    switch $spec
        case 'w:*'
            for word in (string split ' ' -- (string sub -s 3 -- $spec))
                echo $prefix$word
            end
        case 'i:*'
            for line in (${p}_run __complete ids (string sub -s 3 -- $spec) 2>/dev/null)
                echo $prefix$line
            end
        case f
            for path in (__fish_complete_path $cur)
                echo $prefix$path
            end
    end
end

# Where ${tree.name} is in the words before the cursor: 1, or after \`npx [npx's options]\`; 0 if not there.
function ${p}_at
    set -l tokens (commandline -opc)
    # Any command but npx is ${tree.name} (as typed: billing, ./bin/billing, …).
    if test (string replace -r '.*/' '' -- $tokens[1]) != npx
        echo 1
        return
    end
    set -l i 2
    while test $i -le (count $tokens)
        switch $tokens[$i]
            case ${NPX_VALUED.join(' ')}
                set i (math $i + 2)
            case '-*'
                set i (math $i + 1)
            case ${tree.name}
                echo $i
                return
            case '*'
                break
        end
    end
    echo 0
end

function ${p}_complete
    set -g ${p}_at (${p}_at)
    test $${p}_at -gt 0; or return
    set -l all (commandline -opc)
    # Under npx, the words from ${tree.name} on.
    set -l tokens $all[$${p}_at..-1]
    set -l cur (commandline -ct)
    set -g ${p}_context
    set -g ${p}_bin $all[1]
    set -l path ''
    set -l flag ''
    set -l prefix ''
    set -l ended 0
    set -l n 0
    set -l i 2
    set -l last (count $tokens)
    while test $i -le $last
        set -l word $tokens[$i]
        if test $ended = 0; and string match -qr -- '^-.' $word
            if test "$word" = --
                set ended 1
            else if string match -qr -- '^--[^=]+=' $word
                set -l parts (string split -m 1 -- = $word)
                ${p}_keep $parts[1] $parts[2]
            else if ${p}_takes "$path" $word
                if test $i -ge $last
                    set flag $word
                    break
                end
                set i (math $i + 1)
                ${p}_keep $word $tokens[$i]
            end
        else
            ${p}_node "$path"
            if test $ended = 0; and contains -- $word (string replace -r '\\t.*' '' -- $${p}_cmds)
                # \`${tree.name} help customers list\`: help is no level of its own.
                test "$word" = help; or set path (string trim -- "$path $word")
            else
                set n (math $n + 1)
            end
        end
        set i (math $i + 1)
    end

    if test -z "$flag"; and test $ended = 0; and string match -qr -- '^--[^=]+=' $cur
        set -l name (string split -m 1 -- = $cur)[1]
        if ${p}_takes "$path" $name
            set flag $name
            set prefix "$name="
            set cur (string sub -s (math (string length -- $prefix) + 1) -- $cur)
        end
    end

    ${p}_node "$path"
    if test -n "$flag"
        set -l spec (${p}_value "$path" $flag)
        ${p}_values "$spec" "$prefix" "$cur"
    else if test $ended = 0; and string match -q -- '-*' $cur
        printf '%s\\n' $${p}_flags
        test -n "$path"; and printf '%s\\n' $${p}_globals
    else if test $ended = 0; and set -q ${p}_cmds[1]
        printf '%s\\n' $${p}_cmds
    else
        if test $${p}_vararg -ge 0; and test $n -gt $${p}_vararg
            set n $${p}_vararg
        end
        set -l spec (${p}_arg "$path" $n)
        ${p}_values "$spec" "$prefix" "$cur"
    end
end

complete -c ${tree.name} -e
# -k: in the order given (commands as help lists them, ids newest first).
complete -c ${tree.name} -k -f -a '(${p}_complete)'
# Only on an npx line naming ${tree.name}: npx's other completions stay as they are. Added once,
# so loading this file twice (as ${tree.name}.fish and npx.fish) does not offer everything twice
# (\`complete -e\` would erase npx's others too).
if not set -q ${p}_npx_added
    set -g ${p}_npx_added 1
    complete -c npx -n 'test (${p}_at) -gt 1' -k -f -a '(${p}_complete)'
end
`;
}
