#!/usr/bin/env bash
# The archive index on 1,000 sessions of ~200 KB (the archive of scripts/bench-batch.sh):
# time of the first `ctxc index`, of an update with nothing to do, and of `ctxc grep --index`
# queries against `ctxc grep` reading the files:
#   scripts/bench-index.sh [N] [SIZE_BYTES]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
size=${2:-200000}
base=${CTXC_BENCH_DIR:-/tmp/ctxc-bench}
dir=$base/index
go build -o "$dir.ctxc" .
ctxc=$dir.ctxc
rm -rf "$dir" && mkdir -p "$dir/src"
src=$base/batch-src.jsonl
[[ -s $src ]] || (cd ../shared/tools/gen-transcript && go run . -size $((n * size * 17 / 10)) -o "$src")
"$ctxc" load -q "$src" | awk -v n="$n" -v size="$size" -v dir="$dir/src" '
  BEGIN { f = 0; bytes = 0; file = sprintf("%s/s%04d.jsonl", dir, f) }
  { print > file; bytes += length($0) + 1
    if (bytes >= size && $0 ~ /"role":"assistant"/ && $0 !~ /tool_calls/) {
      close(file); f++; bytes = 0
      if (f >= n) exit
      file = sprintf("%s/s%04d.jsonl", dir, f) } }'
files=$(find "$dir/src" -name '*.jsonl' | wc -l)
mb=$(du -sm "$dir/src" | cut -f1)
db=$dir/index.db
t() { local s e; s=$(date +%s.%N); "$@" > "$dir/out" 2>/dev/null || true; e=$(date +%s.%N); awk "BEGIN{printf \"%.3f\", $e-$s}"; }
printf 'archive: %d files, %d MB\n' "$files" "$mb"
printf 'ctxc index (first):          %s s\n' "$(t "$ctxc" index -q --db "$db" "$dir/src")"
printf 'ctxc index (nothing to do):  %s s\n' "$(t "$ctxc" index -q --db "$db" "$dir/src")"
printf 'index size: %s\n' "$(du -h "$db" | cut -f1)"
cat "$dir"/src/*.jsonl > /dev/null
for pat in 'zzqqxx-absent' 'naïve' 'transcript session'; do
  best_i="" best_s=""
  for _ in 1 2 3; do
    ti=$(t "$ctxc" grep --index --db "$db" -F "$pat" "$dir/src"); hi=$(wc -l < "$dir/out")
    ts=$(t "$ctxc" grep -F "$pat" "$dir/src"); hs=$(wc -l < "$dir/out")
    if [[ -z $best_i ]] || awk "BEGIN{exit !($ti < $best_i)}"; then best_i=$ti; fi
    if [[ -z $best_s ]] || awk "BEGIN{exit !($ts < $best_s)}"; then best_s=$ts; fi
  done
  printf '%-20s grep --index %6.3f s (%d hits)   grep (reading the files) %6.3f s (%d hits)\n' "$pat" "$best_i" "$hi" "$best_s" "$hs"
done
