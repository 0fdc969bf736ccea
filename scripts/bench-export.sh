#!/usr/bin/env bash
# Throughput of `ctxc export --parquet` and of the archive to an S3 server, on a generated
# archive of every agent's sessions (scripts/gen-archive):
#   scripts/bench-export.sh [SIZE_BYTES]      (default 200000000)
# Prints, for the same sessions: ctxc stats --json (the reading floor), export (redacted, and
# --no-redact), a second export with nothing changed, the Parquet bytes written against the
# sessions' bytes; then ctxc archive into a local folder and, when the S3 test server runs
# (eval "$(scripts/s3-server.sh up)"), into s3://$CTXC_TEST_S3_BUCKET: MB/s of the sessions'
# bytes each, and the zstd ratio of the archive. Inputs are cached in $CTXC_BENCH_DIR (default
# /tmp/ctxc-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-200000000}
dir=${CTXC_BENCH_DIR:-/tmp/ctxc-bench}
src=$dir/export-src-$size
mkdir -p "$dir"
if [[ ! -d $src ]]; then
  echo "generating $src ..." >&2
  go run ./scripts/gen-archive -size "$size" -o "$src.tmp" >&2
  mv "$src.tmp" "$src"
fi
go build -o "$dir/ctxc" .
ctxc=$dir/ctxc
bytes=$(du -sb "$src" | cut -f1)
files=$(find "$src" -type f | wc -l)
find "$src" -type f -exec cat {} + > /dev/null # page cache, as for the other benchmarks
echo "sessions: $files files, $bytes bytes"

# run NAME CMD...: one run, its wall-clock time, MB/s of the sessions' bytes and peak RSS.
run() {
  local name=$1
  shift
  /usr/bin/time -o "$dir/time.out" -f '%e %M' "$@" > "$dir/run.out" 2> "$dir/run.err" || { cat "$dir/run.err" >&2; exit 1; }
  local out t m
  out=$(tail -1 "$dir/time.out")
  t=${out% *} m=${out#* }
  awk -v n="$name" -v t="$t" -v m="$m" -v b="$bytes" 'BEGIN {
    printf "%-34s %8.2f s  %8.1f MB/s  peak RSS %6.1f MiB\n", n, t, (t > 0) ? b / 1e6 / t : 0, m / 1024 }'
}

out=$dir/export-out
rm -rf "$out" "$out-plain" "$dir/archive-local"
run "stats --json" "$ctxc" stats --json "$src"
run "export --parquet (redacted)" "$ctxc" export --json --parquet "$out" "$src"
parquet=$(du -sb "$out" | cut -f1)
run "export again (nothing changed)" "$ctxc" export --json --parquet "$out" "$src"
run "export --parquet --no-redact" "$ctxc" export --json --no-redact --parquet "$out-plain" "$src"
awk -v p="$parquet" -v b="$bytes" 'BEGIN { printf "parquet: %d bytes, %.1f%% of the sessions (ratio %.1f)\n", p, 100 * p / b, b / p }'
run "archive (local folder)" "$ctxc" archive --json "$src" "$dir/archive-local"
zst=$(grep '"type":"summary"' "$dir/run.out" | sed 's/.*"compressed":\([0-9]*\).*/\1/')
awk -v z="$zst" -v b="$bytes" 'BEGIN { printf "zstd archive: %d bytes, ratio %.2f\n", z, b / z }'
if [[ -n ${AWS_ENDPOINT_URL:-} && -n ${CTXC_TEST_S3_BUCKET:-} ]]; then
  export XDG_CACHE_HOME=$dir/xdg-cache
  rm -rf "$XDG_CACHE_HOME"
  run "archive (S3 server, 127.0.0.1)" "$ctxc" archive --json "$src" "s3://$CTXC_TEST_S3_BUCKET/bench-$(date +%s)/"
  run "export --parquet (S3 server)" "$ctxc" export --json --parquet "s3://$CTXC_TEST_S3_BUCKET/bench-parquet-$(date +%s)/" "$src"
else
  echo "no S3 server (eval \"\$(scripts/s3-server.sh up)\"): the archive to S3 is not measured"
fi
