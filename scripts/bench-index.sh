#!/usr/bin/env bash
# The index on generated archives of every agent (scripts/gen-archive: Claude Code, Codex, pi,
# Copilot CLI, droid, Gemini CLI, Qwen Code and OpenAI sessions in the agents' folders), one
# size after another in one run, so that growth is read off one table:
#   - index size / text size, first build (MB/s, peak RSS), update with nothing changed, update
#     after 1% of the sessions grew (bytes read: only what was appended);
#   - query times (p50, p95 over the queries × runs) of `ctxc search` (with and without bringing
#     the index up to date first) and `ctxc grep --index` (for every pattern, and for those found
#     in at most a tenth of the sessions), next to `ctxc grep` reading the files and `rg` on the
#     same files; the hits of grep --index are checked to be those of ctxc grep.
#   scripts/bench-index.sh [SIZE...]      (RUNS=3 runs of each query; default size 1100000000)
# A SIZE is bytes (an archive of at most 1.1 GB is generated; a larger one is made of copies of
# the 1.1 GB archive, each in its own folder) or a count of sessions with an s (100000s: that
# many small sessions, about 17 KB each). The table of every size is written last, and to
# $CTXC_BENCH_DIR/table.md.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
(( $# > 0 )) || set -- 1100000000
base=${CTXC_BENCH_DIR:-/tmp/ctxc-bench}
unit=1100000000 # the archive that larger sizes copy
mkdir -p "$base"
CGO_ENABLED=0 go build -o "$base/ctxc-index" . && ctxc=$base/ctxc-index   # static, as the release is built
export LC_ALL=C   # (a point in $EPOCHREALTIME, which times a command without starting a process)
secs() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.3f", b-a}'; }
# timed FILE CMD...: runs CMD (its output to $base/out), appends its wall time to FILE and its
# CPU time (user + system) to FILE-cpu: on a shared machine the CPU time is what the other
# jobs do not change much.
timed() {
  local f=$1 s e; shift
  s=$EPOCHREALTIME; /usr/bin/time -f '%U %S %M' -o "$base/cpu" "$@" > "$base/out" 2>/dev/null || true; e=$EPOCHREALTIME
  secs "$s" "$e" >> "$f"; echo >> "$f"
  tail -n 1 "$base/cpu" | awk '{printf "%.3f\n", $1 + $2}' >> "$f-cpu"
}
pct() { sort -n | awk -v p="$1" '{a[NR]=$1} END {i=int((NR*p+99)/100); if (i<1) i=1; printf "%.3f", a[i]}'; }
agents=(.claude .codex .pi .copilot .factory .gemini .qwen openai)
table=$base/table.md
printf '| archive | sessions | first build (CPU) | peak RSS | update, unchanged | update, 1%% grew (bytes read) | index / text | search --no-update p50 / p95 | search p50 / p95 | grep --index p50 / p95 (≤ 10%% / every pattern) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n' > "$table"

# generate SRC ARGS...: an archive of gen-archive in SRC, once.
generate() {
  local src=$1; shift
  if [[ ! -f $src/.done ]]; then
    rm -rf "$src" && go run ./scripts/gen-archive "$@" -o "$src" > "$src.planted" && touch "$src/.done"
  fi
}

bench() {
  local size=$1 src dirs=()
  if [[ $size == *s ]]; then
    src=$base/archive-$size
    generate "$src" -sessions "${size%s}" -mean 4000 -least 1000
    for a in "${agents[@]}"; do dirs+=("$src/$a"); done
  elif (( size <= unit )); then
    src=$base/archive-$size
    generate "$src" -size "$size"
    for a in "${agents[@]}"; do dirs+=("$src/$a"); done
  else
    src=$base/archive-$unit
    generate "$src" -size "$unit"
    local n=$(( (size + unit / 2) / unit ))
    for a in "${agents[@]}"; do dirs+=("$src/$a"); done
    for k in $(seq 2 "$n"); do
      local c=$base/copies/c$k
      [[ -f $c/.done ]] || { rm -rf "$c"; mkdir -p "$c"; cp -a "$src"/. "$c"/; touch "$c/.done"; }
      for a in "${agents[@]}"; do dirs+=("$c/$a"); done
    done
  fi
  local ix=$base/index-$size
  bench_one "$size" "$src" "$ix" "${dirs[@]}"
}

bench_one() {
  local size=$1 src=$2 ix=$3; shift 3
  local dirs=("$@")
  local files bytes
  files=$(find "${dirs[@]}" -name '*.jsonl' | wc -l)
  bytes=$(find "${dirs[@]}" -name '*.jsonl' -printf '%s\n' | awk '{s+=$1} END {print s}')
  find "${dirs[@]}" -name '*.jsonl' -exec cat {} + > /dev/null   # warm the page cache, as for every tool

  printf '\narchive %s: %d sessions, %.1f MB in %d folders given (%s)\n' "$size" "$files" "$(awk -v b="$bytes" 'BEGIN{print b/1e6}')" "${#dirs[@]}" "$(tr '\n' ';' < "$src.planted")"
  rm -rf "$ix"
  local s e first isize rss out
  s=$EPOCHREALTIME; /usr/bin/time -f '%M %U %S' -o "$base/rss" "$ctxc" index -q --db "$ix" "${dirs[@]}"; e=$EPOCHREALTIME
  first=$(secs "$s" "$e"); isize=$(du -sb "$ix" | cut -f1); rss=$(( $(cut -d' ' -f1 "$base/rss") / 1024 ))
  local cpu; cpu=$(awk '{printf "%.1f", $2 + $3}' "$base/rss")
  local mbs ratio
  mbs=$(awk -v b="$bytes" -v t="$first" 'BEGIN{printf "%.1f", b/1e6/t}'); ratio=$(awk -v i="$isize" -v b="$bytes" 'BEGIN{printf "%.3f", i/b}')
  printf 'first build:            %8.2f s  %6.1f MB/s  CPU %s s (%.1f MB per CPU-second)  peak RSS %d MiB  (%d segments)\n' "$first" "$mbs" "$cpu" \
    "$(awk -v b="$bytes" -v c="$cpu" 'BEGIN{print b/1e6/c}')" "$rss" "$(find "$ix" -name 'seg-*' | wc -l)"
  printf 'index size:             %8.1f MB  %.3f × the text\n' "$(awk -v b="$isize" 'BEGIN{print b/1e6}')" "$ratio"
  s=$EPOCHREALTIME; /usr/bin/time -f '%M %U %S' -o "$base/rss-up" "$ctxc" index -q --db "$ix" "${dirs[@]}"; e=$EPOCHREALTIME
  local unchanged; unchanged=$(secs "$s" "$e")
  printf 'update, nothing changed: %7.3f s  CPU %s s  peak RSS %d MiB\n' "$unchanged" "$(awk '{printf "%.2f", $2 + $3}' "$base/rss-up")" "$(( $(cut -d' ' -f1 "$base/rss-up") / 1024 ))"
  # 1% of the sessions grow by one user line.
  find "${dirs[@]}" -name '*.jsonl' | awk 'NR % 100 == 0' | while read -r f; do
    tail -n 1 "$f" >> "$f"
  done
  s=$EPOCHREALTIME; out=$(/usr/bin/time -f '%M %U %S' -o "$base/rss-up" "$ctxc" index --json --db "$ix" "${dirs[@]}"); e=$EPOCHREALTIME
  local grew grown; grew=$(secs "$s" "$e"); grown=$(echo "$out" | grep -o '"appended":[0-9]*,"bytes":[0-9]*')
  printf 'update, 1%% grew:        %8.3f s  CPU %s s  %s  peak RSS %d MiB  %s\n' "$grew" "$(awk '{printf "%.2f", $2 + $3}' "$base/rss-up")" "$grown" \
    "$(( $(cut -d' ' -f1 "$base/rss-up") / 1024 ))" "$(echo "$out" | grep -o '"merged":[0-9]*')"

  local greps=(ECONNRESETQUOKKA reconnectBackoffZebra migration_0042_users_email flakyUploadRetries zzqqxx-absent
    'status=500' 'func kasen' 'lokari' 'driveion')
  local t
  for t in index index-sel scan rg search search-up this; do : > "$base/t-$t"; : > "$base/t-$t-cpu"; done
  local pat infiles
  for pat in "${greps[@]}"; do
    : > "$base/t-this"; : > "$base/t-this-cpu"
    for _ in $(seq "$runs"); do
      timed "$base/t-this" "$ctxc" grep --index --db "$ix" -F "$pat" "${dirs[@]}"; mv "$base/out" "$base/hits-index"
    done
    # ctxc grep and rg read every file: once per pattern (the hits to compare, and a time).
    timed "$base/t-scan" "$ctxc" grep -F "$pat" "${dirs[@]}"; mv "$base/out" "$base/hits-scan"
    timed "$base/t-rg" rg -F "$pat" "${dirs[@]}"
    if ! cmp -s "$base/hits-index" "$base/hits-scan"; then echo "grep --index and grep differ for $pat" >&2; exit 1; fi
    cat "$base/t-this" >> "$base/t-index"; cat "$base/t-this-cpu" >> "$base/t-index-cpu"
    # A pattern found in at most a tenth of the sessions: the search for a session, where the
    # index saves reading; in more, grep --index reads the sessions that hold it, as a scan does.
    infiles=$(rg -l -F "$pat" "${dirs[@]}" 2>/dev/null | wc -l || true)
    if (( infiles * 10 <= files )); then cat "$base/t-this" >> "$base/t-index-sel"; cat "$base/t-this-cpu" >> "$base/t-index-sel-cpu"; fi
    printf '  %-28s %8d hits in %6d sessions   grep --index %6.3f s (median; CPU %s s)   grep %6.3f s   rg %6.3f s\n' "$pat" "$(wc -l < "$base/hits-scan")" "$infiles" \
      "$(pct 50 < "$base/t-this")" "$(pct 50 < "$base/t-this-cpu")" "$(tail -n 1 "$base/t-scan")" "$(tail -n 1 "$base/t-rg")"
  done
  local queries=("reconnect backoff zebra" "migration users email" "flaky upload retries" "kasen lokari" "driveion tumu error"
    "status server config" "the session where I fixed the ECONNRESETQUOKKA bug" "absentword qqzzx")
  local q
  # One untimed run of each query first: the greps above read every session, which on a machine
  # whose page cache is smaller than the archive and its index pushes the index out of it (the
  # first query then reads the segments from disk: 115 ms at 11 GB with 12 GB of cache).
  for q in "${queries[@]}"; do "$ctxc" search --no-update --db "$ix" "$q" > /dev/null 2>&1 || true; done
  for q in "${queries[@]}"; do
    for _ in $(seq "$runs"); do
      timed "$base/t-search" "$ctxc" search --no-update --db "$ix" "$q"
      timed "$base/t-search-up" "$ctxc" search --db "$ix" "$q" "${dirs[@]}"
    done
  done
  s=$EPOCHREALTIME; for _ in $(seq 10); do "$ctxc" --version > /dev/null; done; e=$EPOCHREALTIME
  printf 'ctxc --version (the start of any command): %.3f s\n' "$(awk -v t="$(secs "$s" "$e")" 'BEGIN{print t/10}')"
  printf '%-52s %8s %8s %12s %8s\n' "query ($((${#greps[@]} * runs)) grep --index runs, $((${#queries[@]} * runs)) search runs)" p50 p95 'CPU p50' 'CPU p95'
  local k f
  for k in search:'ctxc search --no-update' search-up:'ctxc search (brings the index up to date first)' \
    index-sel:'ctxc grep --index, in <= 10% of the sessions' index:'ctxc grep --index, every pattern' \
    scan:'ctxc grep (reading the files, once a pattern)' rg:'rg (reading the files, once a pattern)'; do
    f=$base/t-${k%%:*}
    printf '%-52s %7ss %7ss %11ss %7ss\n' "${k#*:}" "$(pct 50 < "$f")" "$(pct 95 < "$f")" "$(pct 50 < "$f-cpu")" "$(pct 95 < "$f-cpu")"
  done
  printf '| %s GB | %d | %.1f s, %s MB/s (%s s) | %d MiB | %s s | %s s (%s) | %s | %s / %s s | %s / %s s | %s / %s s (%s / %s s) |\n' \
    "$(awk -v b="$bytes" 'BEGIN{printf "%.1f", b/1e9}')" "$files" "$first" "$mbs" "$cpu" "$rss" "$unchanged" "$grew" "${grown#*\"bytes\":} bytes" "$ratio" \
    "$(pct 50 < "$base/t-search")" "$(pct 95 < "$base/t-search")" "$(pct 50 < "$base/t-search-up")" "$(pct 95 < "$base/t-search-up")" \
    "$(pct 50 < "$base/t-index-sel")" "$(pct 95 < "$base/t-index-sel")" "$(pct 50 < "$base/t-index")" "$(pct 95 < "$base/t-index")" >> "$table"
}

for size in "$@"; do
  bench "$size"
done
printf '\n'
cat "$table"
