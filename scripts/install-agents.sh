#!/usr/bin/env bash
# Installs the agents beyond Claude Code, Codex and pi whose session files ctxc reads, pinned, from
# the npm registry, into $CTXC_TEST_CACHE/agents-more (default ~/.cache/ctxc-test/agents-more).
# The pins are scripts/agent-packages.txt (one name@version a line, # comments; a pin marked !
# goes into a folder of its own, $CTXC_TEST_CACHE/agents-more/alone/<name>; a pin ending in
# :command links its package's one command under that name, for an older version of an agent
# pinned beside the newer one: !cline@2.18.0:cline2). Idempotent:
# returns at once when the pinned versions are there. Prints one line to eval:
#   export CTXC_MORE_AGENTS_BIN=<dir with the agents' commands>
set -euo pipefail
cd "$(dirname "$0")"
cache=${CTXC_TEST_CACHE:-$HOME/.cache/ctxc-test}
dir=$cache/agents-more
mapfile -t pins < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' agent-packages.txt | grep -v '^$')
stamp=$dir/.pins
if [[ ${#pins[@]} -gt 0 && ( ! -f $stamp || $(cat "$stamp") != "${pins[*]}" ) ]]; then
  mkdir -p "$dir"
  echo "installing ${pins[*]} into $dir ..." >&2
  [[ -f $dir/package.json ]] || echo '{"private":true}' > "$dir/package.json"
  # A pinned node@ comes first: the agents' install scripts then run with it (PATH below).
  for p in "${pins[@]}"; do
    if [[ $p == node@* ]]; then npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$p" >&2; fi
  done
  shared=() alone=()
  for p in "${pins[@]}"; do
    if [[ $p == '!'* ]]; then alone+=("${p#!}"); else shared+=("$p"); fi
  done
  PATH=$dir/node_modules/.bin:$PATH npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "${shared[@]}" >&2
  # A pin marked ! goes into a folder of its own (dependencies that clash with the others'
  # hoisted ones), its commands linked beside the others'.
  for p in "${alone[@]}"; do
    as=
    if [[ $p == *:* ]]; then as=${p##*:}; p=${p%:*}; fi
    name=${p%@*}
    sub=$dir/alone/${name//\//+}${as:+@${p##*@}}
    mkdir -p "$sub"
    [[ -f $sub/package.json ]] || echo '{"private":true}' > "$sub/package.json"
    PATH=$dir/node_modules/.bin:$PATH npm install --prefix "$sub" --no-audit --no-fund --loglevel=error "$p" >&2
    for cmd in $(PATH=$dir/node_modules/.bin:$PATH node -p "const b = require('$sub/node_modules/$name/package.json').bin || {};
        (typeof b === 'string' ? ['$name'.split('/').pop()] : Object.keys(b)).join(' ')"); do
      ln -sf "$sub/node_modules/.bin/$cmd" "$dir/node_modules/.bin/${as:-$cmd}"
    done
  done
  echo "${pins[*]}" > "$stamp"
fi
echo "export CTXC_MORE_AGENTS_BIN=$dir/node_modules/.bin"
