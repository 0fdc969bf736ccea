#!/usr/bin/env bash
# Benchmark `ctxc archive` on one large session:
#   scripts/bench-archive.sh [SIZE_BYTES]      (default 2000000000)
# Generates a Claude-Code-like transcript with ../shared/tools/gen-transcript (cached in
# $CTXC_BENCH_DIR, default /tmp/ctxc-bench), archives it into a fresh directory, and prints the
# wall-clock seconds, MB/s and peak RSS of the first run (everything copied), of a second run
# (nothing new: nothing copied) and of a third after the session grew by 1 MB (only the new bytes),
# then checks the archive with --verify and with zstd -dc against the session. The peak RSS must
# not grow with the session's size: target <= 64 MiB whatever SIZE_BYTES is.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-2000000000}
dir=${CTXC_BENCH_DIR:-/tmp/ctxc-bench}
shared=../shared
mkdir -p "$dir"
file=$dir/big-$size.jsonl
if [[ ! -s $file ]]; then
  echo "generating $file ..." >&2
  (cd "$shared/tools/gen-transcript" && go run . -size "$size" -o "$file")
fi
go build -o "$dir/ctxc" .
src=$dir/archive-src
dest=$dir/archive-dest
rm -rf "$src" "$dest"
mkdir -p "$src/proj"
cp "$file" "$src/proj/session.jsonl"
cat "$src/proj/session.jsonl" > /dev/null # page cache, as for the other benchmarks

# run NAME: one archive run, its time, MB/s of the session's size and peak RSS.
run() {
  /usr/bin/time -o "$dir/time.out" -f '%e %M' "$dir/ctxc" archive --json "$src" "$dest" > "$dir/archive.out"
  local out t m copied
  out=$(tail -1 "$dir/time.out")
  t=${out% *} m=${out#* }
  copied=$(grep '"type":"summary"' "$dir/archive.out" | sed 's/.*"bytes":\([0-9]*\).*/\1/')
  awk -v n="$1" -v t="$t" -v m="$m" -v c="$copied" 'BEGIN {
    mbs = (t > 0) ? c / 1e6 / t : 0
    printf "%-22s %8.2f s  %8.1f MB/s  copied %12d bytes  peak RSS %6.1f MiB\n", n, t, mbs, c, m / 1024 }'
}
bytes=$(stat -c %s "$src/proj/session.jsonl")
echo "session: $bytes bytes"
run "first run"
run "second run (nothing)"
head -c 1000000 "$file" | sed '$d' >> "$src/proj/session.jsonl"
run "after +1 MB"
echo "archive: $(du -b "$dest" | tail -1 | cut -f1) bytes"
"$dir/ctxc" archive -q --verify "$dest" && echo "--verify: ok"
if command -v zstd > /dev/null; then
  zstd -q -dc "$dest/archive-src/proj/session.jsonl.zst" | cmp - "$src/proj/session.jsonl" && echo "zstd -dc: byte for byte"
fi
