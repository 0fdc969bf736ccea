#!/usr/bin/env bash
# Benchmark `ctxc grep` against `rg -c` on the same file, in one run:
#   scripts/bench-grep.sh [SIZE_BYTES]        (default 1000000000)
# Generates a Claude-Code-like transcript with ../shared/tools/gen-transcript (cached in
# $CTXC_BENCH_DIR, default /tmp/ctxc-bench), then for each pattern prints the best of 5
# wall-clock times (the tools run in turn; the file read into the page cache before each run,
# so that both tools read from memory) of `rg -c PATTERN FILE` and `ctxc grep PATTERN FILE`, the ratio (target:
# ctxc within 2x of rg) and ctxc's highest peak RSS. Patterns: absent from the file, rare, frequent.
# CTXC_BENCH_BASE=PATH also times another ctxc binary (say, one built from the previous release)
# in the same rounds: its time and the ratio ctxc/base (within noise near 1).
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1000000000}
dir=${CTXC_BENCH_DIR:-/tmp/ctxc-bench}
mkdir -p "$dir"
file=$dir/big-$size.jsonl
if [[ ! -s $file ]]; then
  echo "generating $file ..." >&2
  (cd ../shared/tools/gen-transcript && go run . -size "$size" -o "$file")
fi
command -v rg >/dev/null || { echo "rg (ripgrep) is not installed: apt-get install ripgrep" >&2; exit 1; }
go build -o "$dir/ctxc" .
bytes=$(stat -L -c %s "$file")
echo "file: $file ($bytes bytes), $(nproc) cores, $(rg --version | head -1)"
# The page cache may hold the file in 2 MB pages, which makes mapping it far cheaper (rg gains
# most): say which state this run measured. The folio size follows the readahead of the
# file's disk (read_ahead_kb: 8192 gives 2 MB folios when free memory has such blocks, 16 or
# less gives small ones), which is how to pick a state:
#   echo 16 > /sys/block/DISK/queue/read_ahead_kb; echo 1 > /proc/sys/vm/drop_caches
cat "$file" > /dev/null
dev=$(basename "$(findmnt -n -o SOURCE --target "$file" 2>/dev/null)" 2>/dev/null || true)
ra=$(cat "/sys/block/$dev/queue/read_ahead_kb" 2>/dev/null || echo unknown)
echo "page cache: $(awk '/^FileHugePages/ {printf "%d MB of files in huge pages", $2/1024}' /proc/meminfo 2>/dev/null || echo unknown) (readahead of ${dev:-?}: $ra KB)"
run() { # run NAME CMD...: one run, the file read into the page cache first (this machine's
  # page cache lets go of pages within seconds); keeps NAME's best wall-clock seconds (ms
  # resolution) in t_NAME and its peak RSS in rss_NAME
  local name=$1; shift
  cat "$file" > /dev/null
  local s e t m
  s=$(date +%s%N)
  /usr/bin/time -o "$dir/time.out" -f '%M' "$@" > "$dir/$name.out" 2>/dev/null || true
  e=$(date +%s%N)
  t=$(awk "BEGIN{printf \"%.3f\", ($e-$s)/1e9}") m=$(tail -1 "$dir/time.out")
  local bt=t_$name br=rss_$name
  if [[ -z ${!bt:-} ]] || awk "BEGIN{exit !($t < ${!bt})}"; then eval "$bt=$t"; fi
  if [[ -z ${!br:-} ]] || (( m > ${!br} )); then eval "$br=$m"; fi
}
base=${CTXC_BENCH_BASE:-}
printf '%-22s %8s %8s %9s %9s %7s %14s' pattern rg-lines hits rg ctxc ratio ctxc-RSS
[[ -n $base ]] && printf ' %9s %9s' base ctxc/base
echo
for pat in 'zzqqxx-absent' 'transcript session' 'context.Context'; do
  unset t_rg t_ctxc t_base rss_rg rss_ctxc rss_base
  for _ in 1 2 3 4 5; do # the tools in turn, so that all see the machine as it is
    run rg rg -c "$pat" "$file"
    run ctxc "$dir/ctxc" grep "$pat" "$file"
    if [[ -n $base ]]; then run base "$base" grep "$pat" "$file"; fi
  done
  printf '%-22s %8s %8s %7.3f s %7.3f s %6.2fx %10.1f MiB' "$pat" "$(cat "$dir/rg.out" || echo 0)" "$(wc -l < "$dir/ctxc.out")" \
    "$t_rg" "$t_ctxc" "$(awk "BEGIN{print $t_ctxc/($t_rg+1e-9)}")" "$(awk "BEGIN{print $rss_ctxc/1024}")"
  if [[ -n $base ]]; then
    if ! cmp -s "$dir/ctxc.out" "$dir/base.out"; then echo; echo "hits differ from the base binary's for $pat" >&2; exit 1; fi
    printf ' %7.3f s %8.2fx' "$t_base" "$(awk "BEGIN{print $t_ctxc/($t_base+1e-9)}")"
  fi
  echo
done
echo "(peak RSS counts the mapped pages of the file in use: ctxc drops a segment's pages once searched)"
