#!/usr/bin/env bash
# ctxc memory over an archive of generated Claude Code sessions: time, throughput and peak RSS,
# next to `cat` and `ctxc stats` over the same files in the same run:
#   scripts/bench-memory.sh [N] [SIZE_BYTES]     (default 1000 sessions of ~200 KB)
# Targets: >= 100 MB/s of session text, peak RSS <= 128 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
size=${2:-200000}
base=${CTXC_BENCH_DIR:-/tmp/ctxc-bench}
dir=$base/memory-$n-$size
mkdir -p "$base"
go build -o "$base/ctxc" .
ctxc=$base/ctxc
if [[ ! -d $dir/src ]]; then
  src=$base/memory-src-$n-$size.jsonl
  [[ -s $src ]] || (cd ../shared/tools/gen-transcript && go run . -size $((n * size * 13 / 10)) -o "$src")
  mkdir -p "$dir/src"
  # Cut the generated session into N files at line ends (each file a session of its own).
  LC_ALL=C awk -v n="$n" -v size="$size" -v dir="$dir/src" '
    BEGIN { f = 0; bytes = 0; file = sprintf("%s/s%04d.jsonl", dir, f) }
    { print > file; bytes += length($0) + 1
      if (bytes >= size) { close(file); f++; bytes = 0; if (f >= n) exit; file = sprintf("%s/s%04d.jsonl", dir, f) } }' "$src"
fi
files=$(find "$dir/src" -name '*.jsonl' | wc -l)
bytes=$(cat "$dir"/src/*.jsonl | wc -c)
cat "$dir"/src/*.jsonl > /dev/null # warm the page cache
# run LABEL CMD...: best wall time of 3 runs and the peak RSS of the best one.
run() {
  local label=$1; shift
  local best="" rss=""
  for _ in 1 2 3; do
    /usr/bin/time -f '%e %M' -o "$dir/time" "$@" > /dev/null 2>&1 || true
    read -r t m < "$dir/time"
    if [[ -z $best ]] || awk "BEGIN{exit !($t < $best)}"; then best=$t; rss=$m; fi
  done
  awk -v l="$label" -v t="$best" -v m="$rss" -v b="$bytes" 'BEGIN {
    s = (t > 0 ? t : 0.001); printf "%-34s %7.2f s  %8.1f MB/s  peak RSS %6.1f MiB\n", l, t, b / 1e6 / s, m / 1024 }'
}
printf 'archive: %d files, %.1f MB, %d cores\n' "$files" "$(awk -v b="$bytes" 'BEGIN{print b/1e6}')" "$(nproc)"
run "cat" sh -c "cat $dir/src/*.jsonl"
run "ctxc stats" "$ctxc" stats -q "$dir/src"
run "ctxc memory" "$ctxc" memory -q "$dir/src"
cp /dev/null "$dir/CLAUDE.md"
run "ctxc memory --update (2nd+ run)" "$ctxc" memory -q --update "$dir/CLAUDE.md" "$dir/src"
printf 'memory file: %d lines, %d entries\n' "$(wc -l < "$dir/CLAUDE.md")" "$(grep -c '^- ' "$dir/CLAUDE.md")"
