#!/usr/bin/env bash
# Two builds of ctxc on the same inputs, command by command: the shared samples (../shared/samples,
# when present), testdata/fixtures, a small generated archive of every agent
# (scripts/gen-archive) and Anthropic and ctxc message lists written by OLD's `load`. Each
# command's standard output and exit status, and the file `compact -o` writes, are compared;
# every difference is printed, then the number of comparisons. Exit 1 on any difference.
#   scripts/compare-builds.sh OLD_BINARY NEW_BINARY
# Timestamps are pinned (compact --now, SOURCE_DATE_EPOCH); the random ids a new session file
# gets are numbered in order of appearance before the files are compared.
set -uo pipefail
cd "$(dirname "$0")/.."
old=$(realpath "${1:?usage: scripts/compare-builds.sh OLD_BINARY NEW_BINARY}")
new=$(realpath "${2:?usage: scripts/compare-builds.sh OLD_BINARY NEW_BINARY}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LC_ALL=C SOURCE_DATE_EPOCH=1767225600 XDG_CONFIG_HOME=$work/config XDG_CACHE_HOME=$work/cache
export HOME=$work/home NO_COLOR=1
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$work/bin"
now=2026-01-01T00:00:00Z

# The inputs.
inputs=()
if [[ -d ../shared/samples ]]; then
  while IFS= read -r f; do inputs+=("$f"); done < <(find ../shared/samples -name '*.jsonl' | sort)
fi
while IFS= read -r f; do inputs+=("$f"); done < <(find testdata/fixtures -name '*.jsonl' | sort)
go run ./scripts/gen-archive -sessions 16 -mean 20000 -least 4000 -seed 7 -o "$work/gen" >/dev/null
while IFS= read -r f; do inputs+=("$f"); done < <(find "$work/gen" -type f -name '*.json*' | sort)
mkdir -p "$work/lists"
for as in anthropic ctxc; do
  "$old" load --as "$as" testdata/fixtures/openai-tools.jsonl >"$work/lists/openai-tools.$as.jsonl" 2>/dev/null
  "$old" load --as "$as" testdata/fixtures/claude-compact-boundary.jsonl >"$work/lists/claude.$as.jsonl" 2>/dev/null
done
inputs+=("$work/lists"/*.jsonl)

comparisons=0
differences=0
# ids: every UUID, 8-hex-digit id, msg_ctxc_ message id and fresh call id numbered in order of
# first appearance.
ids() { perl -pe 'BEGIN{%n=()} s/\b([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?<=")[0-9a-f]{8}(?=")|msg_ctxc_[0-9a-f]+|(?:call|toolu)_[0-9a-f]{16,})\b/$n{$1}||="ID".(scalar(keys %n)+1)/ge' "$1"; }
differ() {
  differences=$((differences + 1))
  echo "DIFFERENT: $*"
}
# run LABEL ARGS...: both builds, stdout and exit status compared; an -o file at $work/out.
run() {
  local label=$1
  shift
  local b
  for b in old new; do
    rm -f "$work/out"*
    # Both builds run from one path: a hook's command names the executable.
    ln -f "${!b}" "$work/bin/ctxc" 2>/dev/null || cp "${!b}" "$work/bin/ctxc"
    "$work/bin/ctxc" "$@" >"$work/$b.raw" 2>"$work/$b.stderr"
    echo $? >"$work/$b.rc"
    ids "$work/$b.raw" >"$work/$b.stdout"
    if [[ -f $work/out ]]; then ids "$work/out" >"$work/$b.file"; else : >"$work/$b.file"; fi
  done
  comparisons=$((comparisons + 1))
  if ! cmp -s "$work/old.rc" "$work/new.rc"; then
    differ "$label: exit $(cat "$work/old.rc") vs $(cat "$work/new.rc")"
  fi
  if ! cmp -s "$work/old.stdout" "$work/new.stdout"; then
    differ "$label: stdout"
    diff "$work/old.stdout" "$work/new.stdout" | head -8
  fi
  if ! cmp -s "$work/old.file" "$work/new.file"; then
    differ "$label: the -o file"
    diff "$work/old.file" "$work/new.file" | head -8
  fi
}

for f in "${inputs[@]}"; do
  n=${f#"$work"/}
  run "stats --json $n" stats --json "$f"
  for as in openai anthropic ctxc; do
    run "load --as $as $n" load --as "$as" "$f"
  done
  # two settings, so that small and large sessions are both compacted
  run "compact -o $n" compact --provider extractive --now "$now" --idle 0s --threshold 300 --target 100 --keep-tail 2 -o "$work/out" "$f"
  run "compact --window -o $n" compact --provider extractive --now "$now" --idle 0s --window 2000 --target 100 --keep-tail 2 -o "$work/out" "$f"
  run "audit --json $n" audit --json "$f"
  run "lint $n" lint "$f"
done
# A conversation handed to every target agent: the new session's text, tools and paths.
for f in testdata/fixtures/*.jsonl; do
  for to in claude-code codex pi gemini-cli qwen-code copilot; do
    run "handoff --to $to $f" handoff --to "$to" --provider extractive --now "$now" -o "$work/out" "$f"
  done
done
run "handoff --to bogus" handoff --to bogus testdata/fixtures/openai-tools.jsonl
# Where each agent's hook goes, and the flags that name it.
for a in claude-code codex pi; do
  run "hooks install --dry-run $a" hooks install --dry-run "$a"
  run "hooks install --settings $a" hooks install --dry-run --settings "$work/s.json" "$a"
  run "hooks install --dir $a" hooks install --dry-run --dir "$work/d" "$a"
done
run "hook bogus" hook bogus </dev/null
for p in 'main\.go' 'error|fail' 'tests?'; do
  run "grep --json $p" grep --json "$p" "${inputs[@]}"
done
run "grep -i --json summary" grep -i --json summary "${inputs[@]}"
run "--format bogus" --format bogus stats testdata/fixtures/openai-tools.jsonl
run "--help" --help
run "stats --help" stats --help
run "handoff --help" handoff --help
run "hook --help" hook --help

echo "$comparisons comparisons, $differences differences"
((differences == 0))
