# What zsh offers for a command line: zsh completes only in its line editor, so a zsh in a pseudo-terminal
# (zsh/zpty) loads the completion script, gets the line and a Tab, and compadd, wrapped, prints every match
# it is given (between << and >>) before adding it. Used by test/commands/completion.test.ts.
# Usage: zsh -f zsh-complete.zsh SCRIPT LINE [DUMP]
# DUMP: a compinit dump made beforehand (as a user's ~/.zcompdump), read without a check: without one, compinit
# reads every function on $fpath anew (most of a run's time).
zmodload zsh/zpty || exit 3
zpty z zsh -f -i
zpty -w z 'PROMPT= RPROMPT= ; unsetopt beep'
if [[ -n $3 ]]; then zpty -w z "autoload -Uz compinit && compinit -u -C -d ${(q)3}"; else zpty -w z 'autoload -Uz compinit && compinit -u -D'; fi
zpty -w z "source ${(q)1}"
zpty -w z "zstyle ':completion:*' list-grouped false; zstyle ':completion:*' insert-tab false; bindkey '^I' complete-word"
zpty -w z 'compadd() { if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi; local -a __hits; builtin compadd -O __hits "$@"; (( $#__hits )) && print -r -l -- "<""<"${^__hits}">"">"; builtin compadd "$@"; }'
zpty -w z 'comppostfuncs=(__idv_done); __idv_done() { print -r -- "<""<END>"">"; exit }'
zpty -w -n z "$2"$'\t'
out=
for i in {1..400}; do
  if zpty -r -t z chunk; then out+=$chunk; [[ $out == *'<<END>>'* ]] && break; else sleep 0.05; fi
done
[[ $out == *'<<END>>'* ]] || { print -u2 -r -- "zsh-complete.zsh: no completion finished for: $2"; exit 4 }
print -r -- "$out" | grep -ao '<<[^>]*>>' | grep -v '^<<END>>$' | sed 's/^<<//; s/>>$//'
