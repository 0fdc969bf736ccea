#!/usr/bin/env bash
# Batch throughput on an archive: 1,000 sessions of ~200 KB (OpenAI message lists, half of them
# over the threshold), `compact --provider extractive -j 2` and `stats` over the same tree:
#   scripts/bench-batch.sh [N] [SIZE_BYTES]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
size=${2:-200000}
dir=${CTXC_BENCH_DIR:-/tmp/ctxc-bench}/batch
go build -o "$dir.ctxc" .
ctxc=$dir.ctxc
rm -rf "$dir" && mkdir -p "$dir/src"
# One generated Claude-like session, converted and cut into N sessions of about SIZE bytes.
src=${CTXC_BENCH_DIR:-/tmp/ctxc-bench}/batch-src.jsonl
[[ -s $src ]] || (cd ../shared/tools/gen-transcript && go run . -size $((n * size * 17 / 10)) -o "$src")
"$ctxc" load -q "$src" | awk -v n="$n" -v size="$size" -v dir="$dir/src" '
  BEGIN { f = 0; bytes = 0; file = sprintf("%s/s%04d.jsonl", dir, f) }
  { print > file; bytes += length($0) + 1
    if (bytes >= size && $0 ~ /"role":"assistant"/ && $0 !~ /tool_calls/) {
      close(file); f++; bytes = 0
      if (f >= n) exit
      file = sprintf("%s/s%04d.jsonl", dir, f) } }'
find "$dir/src" -name '*.jsonl' -exec touch -d '1 hour ago' {} +
files=$(find "$dir/src" -name '*.jsonl' | wc -l)
mb=$(du -sm "$dir/src" | cut -f1)
cat "$dir"/src/*.jsonl > /dev/null
s=$(date +%s.%N); "$ctxc" stats -j 2 --json "$dir/src" > /dev/null; e=$(date +%s.%N)
st=$(awk "BEGIN{print $e-$s}")
s=$(date +%s.%N); "$ctxc" compact -q --provider extractive -j 2 --threshold 30000 --keep-tail 4 --json "$dir/src" > "$dir/result.jsonl" || true; e=$(date +%s.%N)
ct=$(awk "BEGIN{print $e-$s}")
summary=$(grep '"type":"summary"' "$dir/result.jsonl")
printf 'archive: %d files, %d MB\n' "$files" "$mb"
printf 'stats   -j 2: %.2f s  %.0f files/s  %.0f MB/s\n' "$st" "$(awk "BEGIN{print $files/$st}")" "$(awk "BEGIN{print $mb/$st}")"
printf 'compact -j 2: %.2f s  %.0f files/s  %.0f MB/s  %s\n' "$ct" "$(awk "BEGIN{print $files/$ct}")" "$(awk "BEGIN{print $mb/$ct}")" "$summary"
s=$(date +%s.%N); "$ctxc" compact -q --provider extractive -j 2 --threshold 30000 --keep-tail 4 "$dir/src" || true; e=$(date +%s.%N)
printf 'second run (nothing to do): %.2f s\n' "$(awk "BEGIN{print $e-$s}")"
