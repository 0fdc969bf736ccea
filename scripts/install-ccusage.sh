#!/usr/bin/env bash
# Installs ccusage 20.0.24 from the npm registry into $CTXC_TEST_CACHE/ccusage (default
# ~/.cache/ctxc-test/ccusage): the tests compare ctxc's cost of Claude Code sessions with its
# offline figures. Idempotent. Prints one line to eval:
#   export CTXC_CCUSAGE_BIN=<dir with the ccusage command>
set -euo pipefail
cache=${CTXC_TEST_CACHE:-$HOME/.cache/ctxc-test}
dir=$cache/ccusage
pin=ccusage@20.0.24
if [[ ! -f $dir/.pin || $(cat "$dir/.pin") != "$pin" ]]; then
  mkdir -p "$dir"
  [[ -f $dir/package.json ]] || echo '{"private":true}' > "$dir/package.json"
  echo "installing $pin into $dir ..." >&2
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$pin" >&2
  echo "$pin" > "$dir/.pin"
fi
echo "export CTXC_CCUSAGE_BIN=$dir/node_modules/.bin"
