// The zsh completion script: the tree as case statements, a walk over $words that says what to
// offer (kept apart from the completion system, so it can be run on its own), and _describe/compadd.
// It completes `npx billing …` too, handing any other npx line to npx's own completion.
import {
  argValues,
  flagValues,
  globalValues,
  DEFAULT_SECONDS,
  MAX_SECONDS,
  pathOf,
  shQuote,
  varArg,
} from './shells.js';
import type { CompletionTree, FlagSpec } from './tree.js';
import { NPX_RUN, NPX_VALUED } from './npx.js';

/** "name:description" as _describe takes it. */
const described = (name: string, description: string): string => shQuote(`${name.replace(/:/g, '\\:')}:${description}`);
const flagEntries = (flags: FlagSpec[]): string =>
  flags.flatMap((flag) => flag.names.map((name) => described(name, flag.description))).join(' ');

export function zshScript(tree: CompletionTree): string {
  const p = `__${tree.name}`;
  const nodes = tree.nodes
    .map((node) => {
      const commands = node.commands.map((c) => described(c.name, c.description)).join(' ');
      return `    ${shQuote(pathOf(node))}) ${p}_cmds=(${commands}) ${p}_flags=(${flagEntries(node.flags)}) ${p}_vararg=${varArg(node)} ;;`;
    })
    .join('\n');
  const cases = (entries: [string, string][], indent: string) =>
    entries.map(([key, value]) => `${indent}${shQuote(key)}) ${p}_v=${shQuote(value)} ;;`).join('\n');

  return `#compdef ${tree.name} npx
# zsh completion for ${tree.name}, written by \`${tree.name} completion zsh\`: do not edit, write it again.
# Now:          source <(${tree.name} completion zsh)
# Every shell:  ${tree.name} completion zsh > "\${fpath[1]}/_${tree.name}"

# The command at PATH ("customers list"): its subcommands and flags, as name:description.
${p}_node() {
  case $1 in
${nodes}
    *) ${p}_cmds=() ${p}_flags=() ${p}_vararg=-1 ;;
  esac
}

typeset -ga ${p}_globals
${p}_globals=(${flagEntries(tree.globals)})

# What FLAG takes after PATH: w:WORDS, i:KIND (ids), f (files), a (anything); empty for a switch.
${p}_value() {
  case "$1 $2" in
${cases(flagValues(tree), '    ')}
    *)
      case $2 in
${cases(globalValues(tree), '        ')}
        *) ${p}_v= ;;
      esac ;;
  esac
}

# What argument INDEX (from 0) of PATH takes.
${p}_arg() {
  case "$1 $2" in
${cases(argValues(tree), '    ')}
    *) ${p}_v=a ;;
  esac
}

# A flag choosing the store or server, kept for the ids: FLAG VALUE-as-typed.
${p}_keep() {
  case $1 in
    ${tree.context.join('|')}) ;;
    *) return ;;
  esac
  local v=\${(Q)2}
  [[ $v == '~/'* ]] && v=$HOME/\${v#'~/'}
  ${p}_context+=("$1" "$v")
}

# The program as typed (under npx: the ${tree.name} npx has, never one fetched), with the flags
# kept, bounded in time even if it hangs.
${p}_run() {
  local s=\${BILLING_COMPLETION_SECONDS:-}
  [[ $s == <1-${MAX_SECONDS}> && $s != 0* ]] || s=${DEFAULT_SECONDS}
  if (( $+commands[timeout] )); then
    timeout $((s + 1)) "\${${p}_prog[@]}" "\${${p}_context[@]}" "$@" </dev/null
  else
    "\${${p}_prog[@]}" "\${${p}_context[@]}" "$@" </dev/null
  fi
}

# ${p}_kind and ${p}_list from ${p}_v.
${p}_fill() {
  local line
  case $${p}_v in
    w:*) ${p}_kind=values ${p}_list=(\${=${p}_v#w:}) ;;
    i:*)
      ${p}_kind=ids
      for line in "\${(@f)$(${p}_run __complete ids "\${${p}_v#i:}" 2>/dev/null)}"; do
        [[ -z $line ]] && continue
        if [[ $line == *$'\\t'* ]]; then ${p}_list+=("\${line%%$'\\t'*}:\${line#*$'\\t'}"); else ${p}_list+=("$line"); fi
      done ;;
    f) ${p}_kind=files ;;
    *) ${p}_kind= ;;
  esac
}

# What to offer with the cursor in word $1 of the words after it (zsh's $CURRENT and $words):
# sets ${p}_kind (commands, flags, values, ids, files or nothing), ${p}_list and ${p}_prefix (--flag=).
${p}_candidates() {
  local current=$1; shift
  local -a w; w=("$@")
  local cur=\${w[current]} level= word flag= ended= i=2 n=0
  ${p}_context=() ${p}_list=() ${p}_prefix= ${p}_kind=
  ${p}_prog=("\${${p}_npx:-\${(Q)w[1]}}")
  [[ $${p}_prog == '~/'* ]] && ${p}_prog=("$HOME/\${${p}_prog#'~/'}")
  [[ -n $${p}_npx ]] && ${p}_prog+=(${NPX_RUN} ${tree.name})
  while (( i < current )); do
    word=\${w[i]}
    if [[ -z $ended && $word == -?* ]]; then
      if [[ $word == -- ]]; then
        ended=1
      elif [[ $word == --*=* ]]; then
        ${p}_keep "\${word%%=*}" "\${word#*=}"
      else
        ${p}_value "$level" "$word"
        if [[ -n $${p}_v ]]; then
          if (( i + 1 >= current )); then flag=$word; break; fi
          i=$(( i + 1 ))
          ${p}_keep "$word" "\${w[i]}"
        fi
      fi
    else
      ${p}_node "$level"
      if [[ -z $ended ]] && (( \${${p}_cmds[(I)\${(b)word}:*]} )); then
        # \`${tree.name} help customers list\`: help is no level of its own.
        [[ $word == help ]] || level=\${level:+$level }$word
      else
        n=$(( n + 1 ))
      fi
    fi
    i=$(( i + 1 ))
  done

  if [[ -z $flag && -z $ended && $cur == --*=* ]]; then
    ${p}_value "$level" "\${cur%%=*}"
    [[ -n $${p}_v ]] && flag=\${cur%%=*} ${p}_prefix=\${cur%%=*}=
  fi

  ${p}_node "$level"
  if [[ -n $flag ]]; then
    ${p}_value "$level" "$flag"
    ${p}_fill
  elif [[ -z $ended && $cur == -* ]]; then
    ${p}_kind=flags ${p}_list=("\${${p}_flags[@]}")
    [[ -n $level ]] && ${p}_list+=("\${${p}_globals[@]}")
  elif [[ -z $ended && \${#${p}_cmds} -gt 0 ]]; then
    ${p}_kind=commands ${p}_list=("\${${p}_cmds[@]}")
  else
    (( ${p}_vararg >= 0 && n > ${p}_vararg )) && n=$${p}_vararg
    ${p}_arg "$level" $n
    ${p}_fill
  fi
}

_${tree.name}() {
  local ${p}_kind ${p}_prefix ${p}_npx ${p}_v ${p}_vararg
  local -a ${p}_list ${p}_context ${p}_cmds ${p}_flags ${p}_prog
  if [[ $service == npx ]]; then
    # \`npx [npx's options] ${tree.name} …\` is completed as \`${tree.name} …\`; any other npx line as before.
    local i=2
    while (( i < CURRENT )); do
      case \${words[i]} in
        (${NPX_VALUED.join('|')}) (( i += 2 )) ;;
        (-*) (( i += 1 )) ;;
        (*) break ;;
      esac
    done
    if (( i < CURRENT )) && [[ \${(Q)words[i]} == ${tree.name} ]]; then
      ${p}_npx=\${(Q)words[1]}
      words=("\${(@)words[i,-1]}")
      (( CURRENT -= i - 1 ))
    elif (( $+functions[_npx] )); then
      _npx "$@"; return
    else
      _default "$@"; return
    fi
  fi
  ${p}_candidates $CURRENT "\${words[@]}"
  [[ -n $${p}_prefix ]] && compset -P '*='
  case $${p}_kind in
    commands) _describe -t commands '${tree.name} command' ${p}_list ;;
    flags) _describe -t options 'option' ${p}_list ;;
    values) compadd -a ${p}_list ;;
    # Newest first, as the service gave them.
    ids) _describe -V -t ids 'id' ${p}_list ;;
    files) _files ;;
  esac
}

if [[ $funcstack[1] == _${tree.name} ]]; then
  # Loaded from $fpath by compinit: this file is the function's body.
  _${tree.name} "$@"
else
  compdef _${tree.name} ${tree.name} npx
fi
`;
}
