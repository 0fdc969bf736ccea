#!/usr/bin/env bash
# Compaction and load benchmarks, printed as ratios measured in one run:
#   scripts/bench-compact.sh [SIZE_BYTES]     (default 100000000)
# 1. `compact --provider extractive` on a generated transcript vs `stats` on it: both the
#    Claude-Code-like file (which needs -o) and the same conversation as an OpenAI message list
#    (compacted in place). Target: at most 2x stats.
# 2. `load` on a 1 GB ctxc file whose last marker is near the end (target: well under 1 s).
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-100000000}
dir=${CTXC_BENCH_DIR:-/tmp/ctxc-bench}
shared=../shared
mkdir -p "$dir"
go build -o "$dir/ctxc" .
ctxc=$dir/ctxc
gen() { [[ -s $2 ]] || (cd "$shared/tools/gen-transcript" && go run . -size "$1" -o "$2"); }
runs=${CTXC_BENCH_RUNS:-5}
# elapsed CMD...: wall seconds of one run.
elapsed() {
  local s e
  s=$(date +%s.%N); "$@" > /dev/null 2>&1; e=$(date +%s.%N)
  awk "BEGIN{print $e-$s}"
}
# pair FILE SRC CMD...: best wall time of `stats` and of the command over $runs rounds, the two
# alternating so that both see the same moments of a noisy machine; prints "stats compact".
pair() {
  local file=$1 src=$2; shift 2
  local bs="" bc="" t
  for _ in $(seq "$runs"); do
    cp "$src" "$file"; touch -d '1 hour ago' "$file"; sync
    t=$(elapsed "$ctxc" stats "$file")
    if [[ -z $bs ]] || awk "BEGIN{exit !($t < $bs)}"; then bs=$t; fi
    t=$(elapsed "$@")
    if [[ -z $bc ]] || awk "BEGIN{exit !($t < $bc)}"; then bc=$t; fi
  done
  echo "$bs $bc"
}
claude=$dir/big-$size.jsonl
gen "$size" "$claude"
openai=$dir/big-$size-openai.jsonl
[[ -s $openai ]] || "$ctxc" load -q "$claude" > "$openai"
work=$dir/work.jsonl
for f in "$claude" "$openai"; do
  cat "$f" > /dev/null
  if [[ $f == "$claude" ]]; then
    read -r ts tc < <(pair "$work" "$f" "$ctxc" compact --provider extractive -o "$dir/out.jsonl" "$work")
    what="claude-code, -o"
  else
    read -r ts tc < <(pair "$work" "$f" "$ctxc" compact --provider extractive "$work")
    what="openai, in place"
  fi
  printf '%-18s %6.1f MB  stats %.3f s  compact %.3f s  ratio %.2fx (target <= 2x; best of %d, alternating)\n' "$what" "$(awk "BEGIN{print $(stat -c %s "$f")/1e6}")" "$ts" "$tc" "$(awk "BEGIN{print $tc/$ts}")" "$runs"
done

# load after a marker near the end of a 1 GB ctxc file.
big=$dir/big-1000000000.jsonl
gen 1000000000 "$big"
ctxcfile=$dir/big-1GB-ctxc.jsonl
if [[ ! -s $ctxcfile ]]; then
  "$ctxc" load -q "$big" > "$ctxcfile"
  touch -d '1 hour ago' "$ctxcfile"
  "$ctxc" compact -q --provider extractive --keep-tail 40 "$ctxcfile"
  # a little conversation after the marker
  for i in $(seq 1 20); do echo "{\"role\":\"user\",\"content\":\"after the marker $i\"}" >> "$ctxcfile"; done
fi
cat "$ctxcfile" > /dev/null
s=$(date +%s.%N); n=$("$ctxc" load "$ctxcfile" | wc -l); e=$(date +%s.%N)
printf 'load after the last marker of a %.0f MB ctxc file: %.3f s (%d messages; target well under 1 s)\n' "$(awk "BEGIN{print $(stat -c %s "$ctxcfile")/1e6}")" "$(awk "BEGIN{print $e-$s}")" "$n"
