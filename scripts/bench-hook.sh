#!/usr/bin/env bash
# ctxc inside Claude Code's compaction, timed against `ctxc stats` on the same file, in one run:
#   scripts/bench-hook.sh [SIZE_BYTES]     (default 100000000)
# The file: a generated Claude Code session of SIZE bytes that ctxc compacted in place (its own
# compact_boundary and summary near the end), then two more turns: the newest compaction near
# the end, as in a long session. Timed, best of $CTXC_BENCH_RUNS (default 5), alternating with
# stats so that both see the same moments of a noisy machine:
#   - `ctxc hook claude-code` as Claude Code runs it at SessionStart(compact): it loads the
#     effective context (since the newest compaction) and renders the note. Target: < 0.5 s.
#   - `ctxc audit --last`: the ledger of the context before the newest compaction (the whole
#     history here: large) against the context after it. Target: < 1.5x stats... per load.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-100000000}
dir=${CTXC_BENCH_DIR:-/tmp/ctxc-bench}
shared=../shared
runs=${CTXC_BENCH_RUNS:-5}
mkdir -p "$dir"
go build -o "$dir/ctxc" .
ctxc=$dir/ctxc
src=$dir/big-$size.jsonl
[[ -s $src ]] || (cd "$shared/tools/gen-transcript" && go run . -size "$size" -o "$src")
file=$dir/hook-$size.jsonl
if [[ ! -s $file ]]; then
  cp "$src" "$file"; touch -d '1 hour ago' "$file"
  "$ctxc" compact -q --provider extractive "$file"
  # Two more turns after the compaction, chained to the newest record.
  python3 - "$file" <<'PY'
import json, sys, uuid
p = sys.argv[1]
last = None
with open(p, "rb") as f:
    for line in f:
        d = json.loads(line)
        if d.get("uuid"):
            last = d
parent, sid = last["uuid"], last.get("sessionId", "s")
with open(p, "a", encoding="utf-8") as f:
    for i in range(2):
        u = str(uuid.uuid4())
        f.write(json.dumps({"type": "user", "uuid": u, "parentUuid": parent, "sessionId": sid, "isSidechain": False,
            "message": {"role": "user", "content": f"Next step {i}: always run go test -race ./... before committing."}}) + "\n")
        a = str(uuid.uuid4())
        f.write(json.dumps({"type": "assistant", "uuid": a, "parentUuid": u, "sessionId": sid, "isSidechain": False,
            "message": {"id": f"msg_bench_{i}", "role": "assistant", "content": [{"type": "text", "text": "Done."}]}}) + "\n")
        parent = a
PY
fi
input=$dir/hook-input.json
printf '{"session_id":"bench","transcript_path":"%s","hook_event_name":"SessionStart","source":"compact"}\n' "$file" > "$input"
elapsed() {
  local s e
  s=$(date +%s.%N); "$@" > /dev/null 2>&1; e=$(date +%s.%N)
  awk "BEGIN{print $e-$s}"
}
hook() { XDG_STATE_HOME=$dir/state "$ctxc" hook claude-code < "$input"; }
best() { if [[ -z $1 ]] || awk "BEGIN{exit !($2 < $1)}"; then echo "$2"; else echo "$1"; fi; }
cat "$file" > /dev/null
bs="" bh="" ba=""
for _ in $(seq "$runs"); do
  bs=$(best "$bs" "$(elapsed "$ctxc" stats "$file")")
  bh=$(best "$bh" "$(elapsed hook)")
  ba=$(best "$ba" "$(elapsed "$ctxc" audit --last "$file")")
done
hook | python3 -c 'import json,sys; n=json.load(sys.stdin)["hookSpecificOutput"]["additionalContext"]; print("note: %d characters" % len(n))'
"$ctxc" audit --last "$file" > "$dir/audit.txt"; head -1 "$dir/audit.txt"
mb=$(awk "BEGIN{print $(stat -c %s "$file")/1e6}")
printf 'file %.1f MB (newest compaction near the end); best of %d, alternating\n' "$mb" "$runs"
printf '  stats                  %.3f s\n' "$bs"
printf '  hook claude-code       %.3f s   %.2fx stats   (target < 0.5 s)\n' "$bh" "$(awk "BEGIN{print $bh/$bs}")"
printf '  audit --last           %.3f s   %.2fx stats   (two loads: before and after the compaction)\n' "$ba" "$(awk "BEGIN{print $ba/$bs}")"
