#!/usr/bin/env bash
# `ctxc grep --index` of this build against another binary, in alternation, on the archive and
# index of scripts/bench-index.sh (run it first): each pattern is searched by one build then
# the other, RUNS times, and the medians and their ratio are printed. On a machine whose speed
# drifts within minutes, alternation is what makes two builds comparable; the hits of both are
# checked to be the same. Both builds must read the layout of the index (an index of another
# layout is not used: that build reads every file).
#   scripts/compare-index.sh BASE_BINARY [RUNS] [PATTERN...]
#   (CTXC_BENCH_DIR, SIZE_BYTES as for bench-index.sh: CTXC_BENCH_SIZE, default 1100000000)
set -euo pipefail
cd "$(dirname "$0")/.."
basebin=${1:?usage: scripts/compare-index.sh BASE_BINARY [RUNS] [PATTERN...]}
runs=${2:-15}
shift $(( $# >= 2 ? 2 : 1 ))
patterns=("$@")
if (( ${#patterns[@]} == 0 )); then
  patterns=(zzqqxx-absent ECONNRESETQUOKKA reconnectBackoffZebra migration_0042_users_email flakyUploadRetries)
fi
size=${CTXC_BENCH_SIZE:-1100000000}
base=${CTXC_BENCH_DIR:-/tmp/ctxc-bench}
src=$base/archive-$size
ix=$base/index-$size
if [[ ! -f $src/.done || ! -d $ix ]]; then
  echo "no archive or index in $base: run scripts/bench-index.sh $size first" >&2
  exit 2
fi
CGO_ENABLED=0 go build -o "$base/ctxc-compare" . && ctxc=$base/ctxc-compare
dirs=("$src/.claude" "$src/.codex" "$src/.pi" "$src/.copilot" "$src/.factory" "$src/.gemini" "$src/.qwen" "$src/openai")
export LC_ALL=C
ms() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f", (b-a)*1000}'; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%-28s %10s %10s %7s\n' pattern 'this (ms)' 'base (ms)' ratio
for pat in "${patterns[@]}"; do
  : > "$base/t-this"; : > "$base/t-base"
  for _ in $(seq "$runs"); do
    s=$EPOCHREALTIME; "$ctxc" grep --index --db "$ix" -F "$pat" "${dirs[@]}" > "$base/hits-this" 2>/dev/null || true; e=$EPOCHREALTIME
    ms "$s" "$e" >> "$base/t-this"; echo >> "$base/t-this"
    s=$EPOCHREALTIME; "$basebin" grep --index --db "$ix" -F "$pat" "${dirs[@]}" > "$base/hits-base" 2>/dev/null || true; e=$EPOCHREALTIME
    ms "$s" "$e" >> "$base/t-base"; echo >> "$base/t-base"
  done
  if ! cmp -s "$base/hits-this" "$base/hits-base"; then echo "the two builds print different hits for $pat" >&2; exit 1; fi
  a=$(median < "$base/t-this"); b=$(median < "$base/t-base")
  printf '%-28s %10s %10s %6.2f×\n' "$pat" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN{print a/b}')"
done
