#!/usr/bin/env bash
# Benchmark `ctxc stats` on a Gemini CLI session, against cat and `jq -c .`, in one run:
#   scripts/bench-stats-formats.sh [SIZE_BYTES]     (default 500000000)
# Generates a Gemini-CLI-format session (cached in $CTXC_BENCH_DIR, default /tmp/ctxc-bench):
# the header, then turns as Gemini CLI 0.61 writes them — the user's message, the model's message
# written again with its tool call and result, the user message of results, the answer, and a
# {"$set":{"lastUpdated"}} after each — with varied ids and texts. Runs each tool in turn for
# CTXC_BENCH_ROUNDS rounds (default 3) and prints the best wall-clock seconds and MB/s; the
# target is ctxc >= 500 MB/s on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-500000000}
dir=${CTXC_BENCH_DIR:-/tmp/ctxc-bench}
mkdir -p "$dir"
file=$dir/gemini-$size.jsonl
if [[ ! -s $file ]]; then
  echo "generating $file ..." >&2
  python3 - "$size" "$file" <<'PY'
import json, random, sys
size, path = int(sys.argv[1]), sys.argv[2]
rnd = random.Random(1)
words = "the build test file function error value module change check read write list parse line token context session agent model tool result".split()
def text(n):
    return " ".join(rnd.choice(words) for _ in range(n))
def dump(o):
    return json.dumps(o, separators=(",", ":"), ensure_ascii=False) + "\n"
T = "2026-11-26T10:00:00.000Z"
out = open(path, "w", encoding="utf-8")
out.write(dump({"sessionId": "5f0c1d2e-0000-4000-8000-00000000bench", "projectHash": "ab" * 32,
                "startTime": T, "lastUpdated": T, "kind": "main"}))
written, turn = 0, 0
while written < size:
    turn += 1
    uid, gid, rid, aid = (f"{k}-{turn:08d}-{rnd.getrandbits(32):08x}" for k in "ugra")
    call = f"read_file__read_file_{turn}_0"
    tokens = {"input": 1000 + turn, "output": 50, "cached": 500, "thoughts": 20, "tool": 0, "total": 1570 + turn}
    result = [{"functionResponse": {"id": call, "name": "read_file", "response": {"output": text(rnd.randint(200, 700))}}}]
    model = {"id": gid, "timestamp": T, "type": "gemini", "content": "", "thoughts": [{"subject": "Reading", "description": text(30), "timestamp": T}],
             "tokens": tokens, "model": "gemini-2.5-pro"}
    lines = [
        {"id": uid, "timestamp": T, "type": "user", "content": [{"text": text(rnd.randint(10, 80))}]},
        {"$set": {"lastUpdated": T}},
        model,
        {"$set": {"lastUpdated": T}},
        dict(model, toolCalls=[{"id": call, "name": "read_file", "args": {"file_path": f"src/file{turn % 97}.go"},
                                "result": result, "status": "success", "timestamp": T, "displayName": "ReadFile",
                                "description": "Reads a file", "renderOutputAsMarkdown": True}]),
        {"id": rid, "timestamp": T, "type": "user", "content": result},
        {"$set": {"lastUpdated": T}},
        {"id": aid, "timestamp": T, "type": "gemini", "content": text(rnd.randint(30, 150)), "thoughts": [], "tokens": tokens, "model": "gemini-2.5-pro"},
        {"$set": {"lastUpdated": T}},
    ]
    chunk = "".join(dump(l) for l in lines)
    out.write(chunk)
    written += len(chunk.encode("utf-8"))
out.close()
PY
fi
go build -o "$dir/ctxc" .
cat "$file" > /dev/null # page cache: every tool reads from memory
bytes=$(stat -c %s "$file")
once() { # once NAME CMD...: the best (least) wall-clock time of a tool's runs is kept in t_NAME
  local name=$1; shift
  /usr/bin/time -o "$dir/time.out" -f '%e %M' "$@" > /dev/null 2>/dev/null || true
  local out t best
  out=$(tail -1 "$dir/time.out")
  t=${out% *}
  eval "best=\${t_$name:-}"
  if [[ -z $best ]] || awk "BEGIN{exit !($t < $best)}"; then eval "t_$name=$t"; fi
}
row() { # row NAME
  local t
  eval "t=\$t_$1"
  printf '%-6s %8.2f s %9.0f MB/s\n' "$1" "$t" "$(awk "BEGIN{print $bytes/1e6/($t+1e-9)}")"
}
rounds=${CTXC_BENCH_ROUNDS:-3}
for _ in $(seq "$rounds"); do
  once cat cat "$file"
  once ctxc "$dir/ctxc" stats --json "$file"
  once jq jq -c . "$file"
done
echo "file: $file ($bytes bytes, format $("$dir/ctxc" stats --json "$file" | head -1 | sed 's/.*"format":"\([^"]*\)".*/\1/')), $(nproc) cores, best of $rounds rounds"
printf '%-6s %10s %14s\n' tool time throughput
row cat
row ctxc
row jq
echo
awk "BEGIN{printf \"ctxc throughput: %.0f MB/s (target >= 500 on 2 cores); %.1fx jq -c .\n\", $bytes/1e6/$t_ctxc, $t_jq/$t_ctxc}"
