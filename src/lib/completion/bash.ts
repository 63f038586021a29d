// The bash completion script: the tree as case statements, and a walk over COMP_WORDS. Written for
// bash 3.2 too (macOS): no associative arrays, mapfile or ((…)) that could trip `set -e`. It also
// completes `npx billing …`, handing any other npx line to the completion npx had before.
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
import type { CompletionTree } from './tree.js';
import { NPX_RUN, NPX_VALUED } from './npx.js';

export function bashScript(tree: CompletionTree): string {
  const p = `__${tree.name}`;
  const nodes = tree.nodes
    .map((node) => {
      const flags = node.flags.flatMap((flag) => flag.names).join(' ');
      const vararg = varArg(node) >= 0 ? ` ${p}_vararg=${varArg(node)}` : '';
      return `    ${shQuote(pathOf(node))}) ${p}_cmds=${shQuote(node.commands.map((c) => c.name).join(' '))} ${p}_flags=${shQuote(flags)}${vararg} ;;`;
    })
    .join('\n');
  const cases = (entries: [string, string][], indent: string) =>
    entries.map(([key, value]) => `${indent}${shQuote(key)}) ${p}_v=${shQuote(value)} ;;`).join('\n');
  const globals = tree.globals.flatMap((flag) => flag.names).join(' ');

  return `# bash completion for ${tree.name}, written by \`${tree.name} completion bash\`: do not edit, write it again.
# Now:          source <(${tree.name} completion bash)
# Every shell:  ${tree.name} completion bash > ~/.local/share/bash-completion/completions/${tree.name}
# (and the same file as completions/npx, for \`npx ${tree.name}\` before \`${tree.name}\` was ever completed)

# The command at PATH ("customers list"): its subcommands and flags.
${p}_node() {
  ${p}_vararg=-1
  case $1 in
${nodes}
    *) ${p}_cmds= ${p}_flags= ;;
  esac
}

${p}_globals=${shQuote(globals)}

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
  local v=$2
  case $v in
    \\"*\\"|\\'*\\') v=\${v:1:\${#v}-2} ;;
    '~/'*) v=$HOME/\${v:2} ;;
    *) v=\${v//\\\\/} ;;
  esac
  ${p}_context+=("$1" "$v")
}

# The program as typed (under npx: the ${tree.name} npx has, never one fetched), with the flags
# kept, bounded in time even if it hangs.
${p}_run() {
  local -a bin
  bin=("\${${p}_npx:-\${COMP_WORDS[0]}}")
  case $bin in '~/'*) bin=("$HOME/\${bin:2}") ;; esac
  [ -n "$${p}_npx" ] && bin+=(${NPX_RUN} ${tree.name})
  local s=\${BILLING_COMPLETION_SECONDS:-}
  [[ $s =~ ^[1-9][0-9]?$ ]] && (( s <= ${MAX_SECONDS} )) || s=${DEFAULT_SECONDS}
  if type timeout >/dev/null 2>&1; then
    timeout $((s + 1)) "\${bin[@]}" "\${${p}_context[@]}" "$@" </dev/null
  else
    "\${bin[@]}" "\${${p}_context[@]}" "$@" </dev/null
  fi
}

# COMPREPLY from ${p}_v for the word so far ($1), each with $2 before it (--flag=).
${p}_values() {
  local words= line out
  case $${p}_v in
    w:*) words=\${${p}_v#w:} ;;
    i:*)
      out=$(${p}_run __complete ids "\${${p}_v#i:}" 2>/dev/null)
      while IFS= read -r line; do
        [ -n "$line" ] && words="$words \${line%%$'\\t'*}"
      done <<EOF
$out
EOF
      ;;
    f)
      compopt -o filenames 2>/dev/null
      local IFS=$'\\n'
      COMPREPLY=($(compgen -P "$2" -f -- "$1"))
      return ;;
    *) return ;;
  esac
  COMPREPLY=($(compgen -P "$2" -W "$words" -- "$1"))
}

_${tree.name}() {
  local cur=\${COMP_WORDS[COMP_CWORD]} level= word flag= prefix= ended= i=1 n=0
  local ${p}_cmds ${p}_flags ${p}_vararg ${p}_v
  local -a ${p}_context
  ${p}_context=()
  while [ $i -lt $COMP_CWORD ]; do
    word=\${COMP_WORDS[i]}
    if [ -z "$ended" ] && [[ $word == -?* ]]; then
      if [ "$word" = -- ]; then
        ended=1
      elif [[ $word == --*=* ]]; then
        ${p}_keep "\${word%%=*}" "\${word#*=}"
      else
        ${p}_value "$level" "$word"
        if [ -n "$${p}_v" ]; then
          # bash splits --flag=value into three words at the =.
          if [ $((i + 1)) -lt $COMP_CWORD ] && [ "\${COMP_WORDS[i+1]}" = = ]; then i=$((i + 1)); fi
          if [ $((i + 1)) -ge $COMP_CWORD ]; then flag=$word; break; fi
          i=$((i + 1))
          ${p}_keep "$word" "\${COMP_WORDS[i]}"
        fi
      fi
    else
      ${p}_node "$level"
      if [ -z "$ended" ] && [[ " $${p}_cmds " == *" $word "* ]]; then
        # \`${tree.name} help customers list\`: help is no level of its own.
        [ "$word" = help ] || level=\${level:+$level }$word
      else
        n=$((n + 1))
      fi
    fi
    i=$((i + 1))
  done

  if [ -n "$flag" ]; then
    [ "$cur" = = ] && cur=
  elif [ -z "$ended" ] && [[ $cur == --*=* ]]; then
    ${p}_value "$level" "\${cur%%=*}"
    if [ -n "$${p}_v" ]; then flag=\${cur%%=*} prefix=\${cur%%=*}= cur=\${cur#*=}; fi
  fi

  COMPREPLY=()
  if [ -n "$flag" ]; then
    ${p}_value "$level" "$flag"
    ${p}_values "$cur" "$prefix"
  elif [ -z "$ended" ] && [[ $cur == -* ]]; then
    ${p}_node "$level"
    [ -n "$level" ] && ${p}_flags="$${p}_flags $${p}_globals"
    COMPREPLY=($(compgen -W "$${p}_flags" -- "$cur"))
  else
    ${p}_node "$level"
    if [ -z "$ended" ] && [ -n "$${p}_cmds" ]; then
      COMPREPLY=($(compgen -W "$${p}_cmds" -- "$cur"))
    else
      [ "$${p}_vararg" -ge 0 ] && [ $n -gt "$${p}_vararg" ] && n=$${p}_vararg
      ${p}_arg "$level" "$n"
      ${p}_values "$cur" ''
    fi
  fi
}

complete -F _${tree.name} ${tree.name}

# npx's completion before this script (a spec of another program's), kept once: sourcing the
# script again must not make it hand npx lines to itself.
case $(complete -p npx 2>/dev/null) in
  *_${tree.name}_npx*) ;;
  *) ${p}_npx_before=$(complete -p npx 2>/dev/null) ;;
esac

# \`npx [npx's options] ${tree.name} …\` is completed as \`${tree.name} …\`; any other npx line as before.
_${tree.name}_npx() {
  local i=1
  while [ $i -lt $COMP_CWORD ]; do
    case \${COMP_WORDS[i]} in
      ${NPX_VALUED.join('|')})
        i=$((i + 2))
        # bash splits --package=x into three words at the =.
        [ "\${COMP_WORDS[i-1]}" = = ] && i=$((i + 1)) ;;
      -*) i=$((i + 1)) ;;
      *) break ;;
    esac
  done
  if [ $i -lt $COMP_CWORD ] && [ "\${COMP_WORDS[i]}" = ${tree.name} ]; then
    local ${p}_npx=\${COMP_WORDS[0]}
    local -a COMP_WORDS=("\${COMP_WORDS[@]:i}")
    local COMP_CWORD=$((COMP_CWORD - i))
    _${tree.name}
    return
  fi
  local spec=$${p}_npx_before word option= re=' -F ([^ ]+)'
  for word in $spec; do
    [ "$option" = 1 ] && compopt -o "$word" 2>/dev/null
    option=; [ "$word" = -o ] && option=1
  done
  if [ -z "$spec" ]; then
    # No completion of its own: readline's, file names.
    compopt -o default 2>/dev/null
  elif [[ $spec =~ $re ]]; then
    "\${BASH_REMATCH[1]}" "$@"
  else
    local cur=\${COMP_WORDS[COMP_CWORD]}
    spec=\${spec#complete }
    COMPREPLY=($(eval "compgen \${spec% npx} -- \\"\\$cur\\"" 2>/dev/null))
  fi
}
complete -F _${tree.name}_npx npx
`;
}
