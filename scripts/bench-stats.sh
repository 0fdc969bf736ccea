#!/usr/bin/env bash
# Benchmark `ctxc stats` against its peers on the same file, in one run:
#   scripts/bench-stats.sh [SIZE_BYTES]        (default 1000000000)
# Generates a Claude-Code-like transcript with ../shared/tools/gen-transcript (cached in
# $CTXC_BENCH_DIR, default /tmp/ctxc-bench), installs ccusage 20.0.24 (its native build) with
# npm, runs every tool in turn for CTXC_BENCH_ROUNDS rounds (default 5; jq 3), and prints the
# best wall-clock seconds, MB/s, the highest peak RSS and the targets: ctxc >= 1 GB/s
# on the 1 GB file, >= 1.5x ccusage, >= 15x the jq one-liner, peak RSS <= 64 MiB; and the
# speedup of all cores over GOMAXPROCS=1 (target >= 1.8x on 2 cores: reading scales with cores).
# CTXC_BENCH_BASE=PATH also times another ctxc binary (say, one built from the previous release)
# in the same rounds, and prints the ratio: a change is within noise when it stays near 1.
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
go build -o "$dir/ctxc" .
if [[ ! -x $dir/ccusage/node_modules/.bin/ccusage ]]; then
  mkdir -p "$dir/ccusage"
  (cd "$dir/ccusage" && npm install --silent ccusage@20.0.24 >/dev/null 2>&1) || echo "ccusage could not be installed; skipping it" >&2
fi
mkdir -p "$dir/claude/projects/bench"
ln -f "$file" "$dir/claude/projects/bench/session.jsonl" 2>/dev/null || cp "$file" "$dir/claude/projects/bench/session.jsonl"
cat "$file" > /dev/null # page cache: every tool reads from memory

bytes=$(stat -c %s "$file")
# once NAME CMD...: one run; the best (least) wall-clock time of a tool's runs is kept in t_NAME,
# the highest peak RSS in rss_NAME.
once() {
  local name=$1; shift
  /usr/bin/time -o "$dir/time.out" -f '%e %M' "$@" > /dev/null 2>/dev/null || true
  local out t m best
  out=$(tail -1 "$dir/time.out")
  t=${out% *} m=${out#* }
  eval "best=\${t_$name:-} peak=\${rss_$name:-0}"
  if [[ -z $best ]] || awk "BEGIN{exit !($t < $best)}"; then eval "t_$name=$t"; fi
  if (( m > peak )); then eval "rss_$name=$m"; fi
}
row() { # row NAME LABEL
  local t rss
  eval "t=\$t_$1; rss=\$rss_$1"
  printf '%-10s %8.2f s %9.0f MB/s %8.1f MiB\n' "$2" "$t" "$(awk "BEGIN{print $bytes/1e6/($t+1e-9)}")" "$(awk "BEGIN{print $rss/1024}")"
}
# Rounds: every tool once per round, in turn, so that all of them meet the same moments of a
# shared machine (its speed drifts by 20% over minutes); the best of each tool's runs counts.
rounds=${CTXC_BENCH_ROUNDS:-5}
have_ccusage=false
[[ -x $dir/ccusage/node_modules/.bin/ccusage ]] && have_ccusage=true
for r in $(seq "$rounds"); do
  once cat cat "$file"
  once ctxc "$dir/ctxc" stats --json "$file"
  once ctxc1 env GOMAXPROCS=1 "$dir/ctxc" stats --json "$file"
  if [[ -n ${CTXC_BENCH_BASE:-} ]]; then once base "$CTXC_BENCH_BASE" stats --json "$file"; fi
  if $have_ccusage; then
    once ccusage env CLAUDE_CONFIG_DIR="$dir/claude" "$dir/ccusage/node_modules/.bin/ccusage" claude daily --json --offline
  fi
  if (( r <= 3 )); then # jq takes over 10 s a run
    once jq jq -n 'reduce (inputs|..|strings|length) as $n (0;.+$n)' "$file"
  fi
done
echo "file: $file ($bytes bytes), $(nproc) cores, best of $rounds rounds (jq: 3)"
printf '%-10s %10s %14s %12s\n' tool time throughput peak-RSS
row cat cat
row ctxc ctxc
row ctxc1 ctxc1
row jq jq
if [[ -n ${CTXC_BENCH_BASE:-} ]]; then row base base; fi
if $have_ccusage; then row ccusage ccusage; fi
echo
awk "BEGIN{printf \"ctxc throughput: %.0f MB/s (target >= 1000 on 1 GB)\n\", $bytes/1e6/$t_ctxc}"
awk "BEGIN{printf \"ctxc vs jq:      %.1fx faster (target >= 15x)\n\", $t_jq/$t_ctxc}"
if [[ -n ${t_ccusage:-} ]]; then
  awk "BEGIN{printf \"ctxc vs ccusage: %.2fx (target >= 1.5x)\n\", $t_ccusage/$t_ctxc}"
fi
awk "BEGIN{printf \"ctxc peak RSS:   %.1f MiB (target <= 64 MiB)\n\", $rss_ctxc/1024}"
if [[ -n ${CTXC_BENCH_BASE:-} ]]; then
  awk "BEGIN{printf \"ctxc vs base:    %.2fx the time of $CTXC_BENCH_BASE (within noise near 1)\n\", $t_ctxc/$t_base}"
fi
awk "BEGIN{printf \"ctxc speedup:    %.2fx with $(nproc) cores over GOMAXPROCS=1 (target >= 1.8x on 2)\n\", $t_ctxc1/$t_ctxc}"
