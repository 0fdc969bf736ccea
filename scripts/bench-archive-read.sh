#!/usr/bin/env bash
# Benchmark reading an archived session against the plain file:
#   scripts/bench-archive-read.sh [SIZE_BYTES]     (default 1000000000)
# Generates a Claude-Code-like transcript with ../shared/tools/gen-transcript (cached in
# $CTXC_BENCH_DIR, default /tmp/ctxc-bench), archives it with `ctxc archive`, then runs
# `ctxc stats --json`, `ctxc grep -F` and `ctxc grep --json -F` (a pattern absent from the
# session, so that the search, not the output, is timed) on the plain file and on its archive, CTXC_BENCH_ROUNDS rounds (default 3) in turn, and prints the
# best wall-clock seconds, MB/s of the session's (decompressed) size and the highest peak RSS.
# `ctxc load` of the archive holds the session decompressed in memory (it reads lines again by
# offset): its peak RSS is printed too, with CTXC_BENCH_LOAD=1.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1000000000}
dir=${CTXC_BENCH_DIR:-/tmp/ctxc-bench}
shared=../shared
mkdir -p "$dir"
file=$dir/big-$size.jsonl
if [[ ! -s $file ]]; then
  echo "generating $file ..." >&2
  (cd "$shared/tools/gen-transcript" && go run . -size "$size" -o "$file")
fi
bin=$dir/ctxc-archive-read
go build -o "$bin" .
src=$dir/archive-read-src
dest=$dir/archive-read-dest
rm -rf "$src" "$dest"
mkdir -p "$src"
ln "$file" "$src/session.jsonl" 2>/dev/null || cp "$file" "$src/session.jsonl"
"$bin" archive "$src" "$dest" > /dev/null 2>&1
arch=$dest/$(basename "$src")/session.jsonl.zst
bytes=$(stat -c %s "$file")
zbytes=$(stat -c %s "$arch")
cat "$file" "$arch" > /dev/null # page cache: both read from memory

# once NAME CMD...: one run; the best time of a name's runs is kept in t_NAME, the highest peak
# RSS in rss_NAME.
once() {
  local name=$1; shift
  /usr/bin/time -o "$dir/time.out" -f '%e %M' "$@" > /dev/null 2>/dev/null || true
  local out t m best peak
  out=$(tail -1 "$dir/time.out")
  t=${out% *} m=${out#* }
  eval "best=\${t_$name:-} peak=\${rss_$name:-0}"
  if [[ -z $best ]] || awk "BEGIN{exit !($t < $best)}"; then eval "t_$name=$t"; fi
  if (( m > peak )); then eval "rss_$name=$m"; fi
}
row() { # row NAME LABEL
  local t rss
  eval "t=\$t_$1; rss=\$rss_$1"
  printf '%-26s %8.2f s %8.0f MB/s %9.1f MiB\n' "$2" "$t" "$(awk "BEGIN{print $bytes/1e6/($t+1e-9)}")" "$(awk "BEGIN{print $rss/1024}")"
}
rounds=${CTXC_BENCH_ROUNDS:-3}
for r in $(seq "$rounds"); do
  once zcat zstd -dc "$arch"
  once stats "$bin" stats --json "$file"
  once zstats "$bin" stats --json "$arch"
  once grep "$bin" grep -F 'needle-absent-7f3a' "$file"
  once zgrep "$bin" grep -F 'needle-absent-7f3a' "$arch"
  once grepj "$bin" grep --json -F 'needle-absent-7f3a' "$file"
  once zgrepj "$bin" grep --json -F 'needle-absent-7f3a' "$arch"
  if [[ -n ${CTXC_BENCH_LOAD:-} ]]; then
    once load "$bin" load "$file"
    once zload "$bin" load "$arch"
  fi
done
printf 'session %d bytes, archive %d bytes (%.1fx smaller), best of %d rounds\n' "$bytes" "$zbytes" "$(awk "BEGIN{print $bytes/$zbytes}")" "$rounds"
printf '%-26s %10s %13s %13s\n' "" "wall" "MB/s" "peak RSS"
command -v zstd > /dev/null && row zcat "zstd -dc (archive)"
row stats "ctxc stats (plain)"
row zstats "ctxc stats (archive)"
row grep "ctxc grep (plain)"
row zgrep "ctxc grep (archive)"
row grepj "ctxc grep --json (plain)"
row zgrepj "ctxc grep --json (archive)"
if [[ -n ${CTXC_BENCH_LOAD:-} ]]; then
  row load "ctxc load (plain)"
  row zload "ctxc load (archive)"
fi
