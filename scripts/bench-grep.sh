#!/usr/bin/env bash
# Benchmark `ctxc grep` against `rg -c` on the same file, in one run:
#   scripts/bench-grep.sh [SIZE_BYTES]        (default 1000000000)
# Generates a Claude-Code-like transcript with ../shared/tools/gen-transcript (cached in
# $CTXC_BENCH_DIR, default /tmp/ctxc-bench), then for each pattern prints the best of 3
# wall-clock times (the file read into the page cache before each run, so that both tools
# read from memory) of `rg -c PATTERN FILE` and `ctxc grep PATTERN FILE`, the ratio (target:
# ctxc within 2x of rg) and ctxc's peak RSS. Patterns: absent from the file, rare, frequent.
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
best() { # best NAME CMD...: best of 3 wall-clock seconds; sets t_NAME and rss_NAME
  local name=$1; shift
  local b="" r=""
  for _ in 1 2 3; do
    cat "$file" > /dev/null # again before each run: this machine's page cache lets go of pages within seconds
    /usr/bin/time -o "$dir/time.out" -f '%e %M' "$@" > "$dir/$name.out" 2>/dev/null || true
    local out t m
    out=$(tail -1 "$dir/time.out"); t=${out% *} m=${out#* }
    if [[ -z $b ]] || awk "BEGIN{exit !($t < $b)}"; then b=$t; r=$m; fi
  done
  eval "t_$name=$b; rss_$name=$r"
}
printf '%-22s %8s %8s %10s %7s %8s %14s\n' pattern rg-lines hits rg ctxc ratio ctxc-RSS
for pat in 'zzqqxx-absent' 'transcript session' 'context.Context'; do
  best rg rg -c "$pat" "$file"
  best ctxc "$dir/ctxc" grep "$pat" "$file"
  printf '%-22s %8s %8s %8.2f s %5.2f s %7.2fx %10.1f MiB\n' "$pat" "$(cat "$dir/rg.out" || echo 0)" "$(wc -l < "$dir/ctxc.out")" \
    "$t_rg" "$t_ctxc" "$(awk "BEGIN{print $t_ctxc/($t_rg+1e-9)}")" "$(awk "BEGIN{print $rss_ctxc/1024}")"
done
echo "(peak RSS counts the mapped pages of the file in use: ctxc drops a segment's pages once searched)"
