#!/usr/bin/env bash
# The index on a generated archive of every agent (scripts/gen-archive: Claude Code, Codex, pi,
# Copilot CLI, droid, Gemini CLI, Qwen Code and OpenAI sessions in the agents' folders, ≥ 1 GB by default), in one run:
#   - index size / text size, first build (MB/s, peak RSS), update with nothing changed, update
#     after 1% of the sessions grew (bytes read: only what was appended);
#   - query times (p50, p95 over the queries × runs) of `ctxc search` (with and without bringing
#     the index up to date first) and `ctxc grep --index` (for every pattern, and for those found
#     in at most a tenth of the sessions), next to `ctxc grep` reading the files and `rg` on the
#     same files; the hits of grep --index are checked to be those of ctxc grep.
#   scripts/bench-index.sh [SIZE_BYTES] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1100000000}
runs=${2:-3}
base=${CTXC_BENCH_DIR:-/tmp/ctxc-bench}
src=$base/archive-$size
ix=$base/index-$size
mkdir -p "$base"
CGO_ENABLED=0 go build -o "$base/ctxc-index" . && ctxc=$base/ctxc-index   # static, as the release is built
if [[ ! -f $src/.done ]]; then
  rm -rf "$src" && go run ./scripts/gen-archive -size "$size" -o "$src" > "$base/archive-$size.planted" && touch "$src/.done"
fi
dirs=("$src/.claude" "$src/.codex" "$src/.pi" "$src/.copilot" "$src/.factory" "$src/.gemini" "$src/.qwen" "$src/openai")
files=$(find "${dirs[@]}" -name '*.jsonl' | wc -l)
bytes=$(find "${dirs[@]}" -name '*.jsonl' -printf '%s\n' | awk '{s+=$1} END {print s}')
export LC_ALL=C   # (a point in $EPOCHREALTIME, which times a command without starting a process)
secs() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.3f", b-a}'; }
find "${dirs[@]}" -name '*.jsonl' -exec cat {} + > /dev/null   # warm the page cache, as for every tool

printf 'archive: %d sessions, %.1f MB (%s)\n' "$files" "$(awk -v b="$bytes" 'BEGIN{print b/1e6}')" "$(tr '\n' ';' < "$base/archive-$size.planted")"
rm -rf "$ix"
s=$EPOCHREALTIME; /usr/bin/time -f '%M' -o "$base/rss" "$ctxc" index -q --db "$ix" "${dirs[@]}"; e=$EPOCHREALTIME
first=$(secs "$s" "$e"); isize=$(du -sb "$ix" | cut -f1)
printf 'first build:            %8.2f s  %6.1f MB/s  peak RSS %d MiB\n' "$first" "$(awk -v b="$bytes" -v t="$first" 'BEGIN{print b/1e6/t}')" "$(( $(cat "$base/rss") / 1024 ))"
printf 'index size:             %8.1f MB  %.3f × the text\n' "$(awk -v b="$isize" 'BEGIN{print b/1e6}')" "$(awk -v i="$isize" -v b="$bytes" 'BEGIN{print i/b}')"
s=$EPOCHREALTIME; "$ctxc" index -q --db "$ix" "${dirs[@]}"; e=$EPOCHREALTIME
printf 'update, nothing changed: %7.3f s\n' "$(secs "$s" "$e")"
# 1% of the sessions grow by one user line.
find "${dirs[@]}" -name '*.jsonl' | awk 'NR % 100 == 0' | while read -r f; do
  tail -n 1 "$f" >> "$f"
done
s=$EPOCHREALTIME; out=$("$ctxc" index --json --db "$ix" "${dirs[@]}"); e=$EPOCHREALTIME
printf 'update, 1%% grew:        %8.3f s  %s\n' "$(secs "$s" "$e")" "$(echo "$out" | grep -o '"appended":[0-9]*,"bytes":[0-9]*')"

pct() { sort -n | awk -v p="$1" '{a[NR]=$1} END {i=int((NR*p+99)/100); if (i<1) i=1; printf "%.3f", a[i]}'; }
greps=(ECONNRESETQUOKKA reconnectBackoffZebra migration_0042_users_email flakyUploadRetries zzqqxx-absent
  'status=500' 'func kasen' 'lokari' 'driveion')
: > "$base/t-index"; : > "$base/t-index-sel"; : > "$base/t-scan"; : > "$base/t-rg"; : > "$base/t-search"; : > "$base/t-search-up"
for pat in "${greps[@]}"; do
  : > "$base/t-this"
  for _ in $(seq "$runs"); do
    s=$EPOCHREALTIME; "$ctxc" grep --index --db "$ix" -F "$pat" "${dirs[@]}" > "$base/hits-index" 2>/dev/null || true; e=$EPOCHREALTIME; secs "$s" "$e" >> "$base/t-this"; echo >> "$base/t-this"
    s=$EPOCHREALTIME; "$ctxc" grep -F "$pat" "${dirs[@]}" > "$base/hits-scan" 2>/dev/null || true; e=$EPOCHREALTIME; secs "$s" "$e" >> "$base/t-scan"; echo >> "$base/t-scan"
    s=$EPOCHREALTIME; rg -F "$pat" "${dirs[@]}" > /dev/null 2>&1 || true; e=$EPOCHREALTIME; secs "$s" "$e" >> "$base/t-rg"; echo >> "$base/t-rg"
  done
  if ! cmp -s "$base/hits-index" "$base/hits-scan"; then echo "grep --index and grep differ for $pat" >&2; exit 1; fi
  cat "$base/t-this" >> "$base/t-index"
  # A pattern found in at most a tenth of the sessions: the search for a session, where the
  # index saves reading; in more, grep --index reads the sessions that hold it, as a scan does.
  infiles=$(rg -l -F "$pat" "${dirs[@]}" 2>/dev/null | wc -l || true)
  if (( infiles * 10 <= files )); then cat "$base/t-this" >> "$base/t-index-sel"; fi
  med() { tail -n "$runs" "$1" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
  printf '  %-28s %7d hits in %4d sessions   grep --index %6.3f s   grep %6.3f s   rg %6.3f s (medians)\n' "$pat" "$(wc -l < "$base/hits-scan")" "$infiles" \
    "$(med "$base/t-this")" "$(med "$base/t-scan")" "$(med "$base/t-rg")"
done
queries=("reconnect backoff zebra" "migration users email" "flaky upload retries" "kasen lokari" "driveion tumu error"
  "status server config" "the session where I fixed the ECONNRESETQUOKKA bug" "absentword qqzzx")
for q in "${queries[@]}"; do
  for _ in $(seq "$runs"); do
    s=$EPOCHREALTIME; "$ctxc" search --no-update --db "$ix" "$q" > /dev/null 2>&1 || true; e=$EPOCHREALTIME; secs "$s" "$e" >> "$base/t-search"; echo >> "$base/t-search"
    s=$EPOCHREALTIME; "$ctxc" search --db "$ix" "$q" "${dirs[@]}" > /dev/null 2>&1 || true; e=$EPOCHREALTIME; secs "$s" "$e" >> "$base/t-search-up"; echo >> "$base/t-search-up"
  done
done
s=$EPOCHREALTIME; for _ in $(seq 10); do "$ctxc" --version > /dev/null; done; e=$EPOCHREALTIME
printf 'ctxc --version (the start of any command): %.3f s\n' "$(awk -v t="$(secs "$s" "$e")" 'BEGIN{print t/10}')"
printf '%-52s %8s %8s\n' "query ($((${#greps[@]} * runs)) grep runs, $((${#queries[@]} * runs)) search runs)" p50 p95
for k in search:'ctxc search --no-update' search-up:'ctxc search (brings the index up to date first)' \
  index-sel:'ctxc grep --index, in <= 10% of the sessions' index:'ctxc grep --index, every pattern' \
  scan:'ctxc grep (reading the files)' rg:'rg (reading the files)'; do
  f=$base/t-${k%%:*}
  printf '%-52s %7ss %7ss\n' "${k#*:}" "$(pct 50 < "$f")" "$(pct 95 < "$f")"
done
