#!/usr/bin/env bash
# hostile.sh [CTXC_BINARY]: runs every hostile case users met against a build of ctxc and prints
# a Markdown table: the case, the command, its exit code, the first line of its stderr, whether
# its input is byte for byte unchanged (sha256 before and after), the temporary files it left (in
# the input's folder and in its $TMPDIR), its time and its peak memory (/usr/bin/time %M).
# docs/reliability.md is this table; regenerate it with:
#   go build -o /tmp/ctxc . && scripts/hostile.sh /tmp/ctxc
# Every input is generated in a temporary folder, removed at the end. Runs in under two minutes.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
if [[ -z $bin ]]; then
  bin=$(mktemp -d)/ctxc
  go build -o "$bin" . || exit 1
fi
bin=$(realpath "$bin")
work=$(mktemp -d /tmp/ctxc-hostile.XXXXXX)
chmod 755 "$work"
server_pid=
cleanup() {
  [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null
  chmod -R u+rwx "$work" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
cp "$bin" "$work/ctxc" && chmod 755 "$work/ctxc"
bin=$work/ctxc
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config XDG_CACHE_HOME=$work/home/.cache XDG_STATE_HOME=$work/home/.state
mkdir -p "$HOME"

# ---- inputs ----------------------------------------------------------------------------------
python3 - "$work" <<'EOF'
import json, os, sys, random
w = sys.argv[1]
def session(path, turns=12, tail=b""):
    filler = "The parser reads tokens from the lexer and builds the tree. " * 25
    lines = [{"role": "system", "content": "You are a careful coding agent."},
             {"role": "user", "content": "Refactor the parser in pkg/parse and keep the public API stable."}]
    for t in range(turns):
        cid = f"call_{t}"
        lines.append({"role": "assistant", "content": f"Step {t}", "tool_calls": [{"id": cid, "type": "function",
                      "function": {"name": "read", "arguments": json.dumps({"path": f"pkg/parse/file{t}.go"})}}]})
        lines.append({"role": "tool", "tool_call_id": cid, "content": filler})
    lines.append({"role": "assistant", "content": "All steps done; tests pass."})
    with open(path, "wb") as f:
        f.write(b"".join(json.dumps(l).encode() + b"\n" for l in lines) + tail)
os.makedirs(f"{w}/same", exist_ok=True)
session(f"{w}/same/s.jsonl")
session(f"{w}/same/l.jsonl"); os.symlink("l.jsonl", f"{w}/same/link.jsonl")
session(f"{w}/same/h.jsonl"); os.link(f"{w}/same/h.jsonl", f"{w}/same/hard.jsonl")
session(f"{w}/same/r.jsonl")
os.makedirs(f"{w}/flags", exist_ok=True); session(f"{w}/flags/e.jsonl")
# Codex: a developer message between a function call and its output.
os.makedirs(f"{w}/codex", exist_ok=True)
meta = {"timestamp": "2026-11-02T09:00:00Z", "type": "session_meta", "payload": {"id": "7a2b0000-0000-4000-8000-000000000002", "cwd": "/tmp", "timestamp": "2026-11-02T09:00:00Z"}}
def item(p): return {"timestamp": "2026-11-02T09:00:01Z", "type": "response_item", "payload": p}
rec = [meta,
       item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list the files"}]}),
       item({"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"ls\"]}", "call_id": "call_1"}),
       item({"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "approval granted"}]}),
       item({"type": "function_call_output", "call_id": "call_1", "output": "a.txt\nb.txt"}),
       item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Two files."}]})]
open(f"{w}/codex/rollout.jsonl", "w").write("".join(json.dumps(r) + "\n" for r in rec))
# A folder reached through a symbolic link; a folder with an unreadable subfolder.
os.makedirs(f"{w}/real", exist_ok=True); session(f"{w}/real/a.jsonl", 2); os.symlink("real", f"{w}/linkdir")
os.makedirs(f"{w}/locked/private", exist_ok=True); session(f"{w}/locked/a.jsonl", 2); session(f"{w}/locked/private/b.jsonl", 2)
# A Claude Code subagent file.
os.makedirs(f"{w}/claude/subagents", exist_ok=True)
sub = [{"parentUuid": None, "isSidechain": True, "type": "user", "uuid": "u1", "sessionId": "s1", "agentId": "x",
        "message": {"role": "user", "content": "ask alice about the deploy key"}, "timestamp": "2026-11-02T09:00:00Z"},
       {"parentUuid": "u1", "isSidechain": True, "type": "assistant", "uuid": "a1", "sessionId": "s1", "agentId": "x",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "alice has the key"}]}, "timestamp": "2026-11-02T09:00:01Z"}]
open(f"{w}/claude/subagents/agent-x.jsonl", "w").write("".join(json.dumps(r) + "\n" for r in sub))
# Invalid UTF-8 inside a JSON string.
os.makedirs(f"{w}/utf8", exist_ok=True)
open(f"{w}/utf8/s.jsonl", "wb").write(b'{"role":"user","content":"caf\xe9 \xff\xfe ok"}\n{"role":"assistant","content":"fine"}\n')
# A file name with a newline.
os.makedirs(f"{w}/newline", exist_ok=True); session(f"{w}/newline/a\nb.jsonl", 2)
# A folder of sessions for --dry-run order.
os.makedirs(f"{w}/batch", exist_ok=True)
for i in range(12): session(f"{w}/batch/s{i:02d}.jsonl", 12)
# A partial last line.
os.makedirs(f"{w}/partial", exist_ok=True)
session(f"{w}/partial/s.jsonl", 12, tail=b'{"role":"user","content":"half a li')
# One line of 100 MB.
os.makedirs(f"{w}/huge", exist_ok=True)
with open(f"{w}/huge/s.jsonl", "wb") as f:
    f.write(b'{"role":"user","content":"start"}\n{"role":"assistant","content":"')
    chunk = b"word " * 200_000
    for _ in range(100): f.write(chunk)
    f.write(b'"}\n{"role":"user","content":"end"}\n')
# Garbage.
os.makedirs(f"{w}/garbage", exist_ok=True)
open(f"{w}/garbage/random.jsonl", "wb").write(random.Random(1).randbytes(1 << 20))
open(f"{w}/garbage/pretty.jsonl", "w").write(json.dumps([{"role": "user", "content": f"m{i}"} for i in range(200)], indent=2))
EOF
# The line of 100 MB as an archived session (read as a stream), when zstd is there to write it.
mkdir -p "$work/hugez"
command -v zstd >/dev/null && zstd -q "$work/huge/s.jsonl" -o "$work/hugez/s.jsonl.zst"
old=$(date -d '-2 hours' +%Y%m%d%H%M)
find "$work" -path "$work/home" -prune -o -type f -exec touch -h -t "$old" {} +

# ---- the endpoint that accepts and never answers ----------------------------------------------
port_file=$work/port
python3 - "$port_file" <<'EOF' &
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0)); s.listen(16)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
conns = []
while True:
    c, _ = s.accept(); conns.append(c)  # accepted, read from never, answered never
EOF
server_pid=$!
for _ in $(seq 50); do [[ -s $port_file ]] && break; sleep 0.1; done
silent=http://127.0.0.1:$(cat "$port_file")/v1

# ---- running a case -----------------------------------------------------------------------------
digest() { # sha256 of a file, or of every file below a folder (names and bytes)
  if [[ -d $1 ]]; then (cd "$1" && find . -type f -print0 | sort -z | xargs -0 -r sha256sum | sha256sum | cut -c1-16)
  else sha256sum "$1" 2>/dev/null | cut -c1-16; fi
}
listing() { find "$1" -mindepth 1 2>/dev/null | sort; }
md() { local s=${1//|/\\|}; s=${s//$work/\$W}; printf '%s' "${s//$'\n'/⏎}"; }

echo "| # | case | command | exit | stderr, first line | input unchanged | temporary files left | time s | peak KB |"
echo "|---|---|---|---|---|---|---|---|---|"

# case NUM NAME INPUT [--out FILE] [--as USER] -- COMMAND...: run one case and print its row.
case_() {
  local num=$1 name=$2 input=$3; shift 3
  local out="" as="" show=""
  while [[ $1 != -- ]]; do
    case $1 in --out) out=$2; shift 2;; --as) as=$2; shift 2;; --show) show=$2; shift 2;; esac
  done
  shift
  local dir=$input; [[ -d $input ]] || dir=$(dirname "$input")
  local tmp=$work/tmp.$num.$RANDOM; mkdir -p "$tmp"; chmod 777 "$tmp"
  local before; before=$(digest "$input")
  local list_before; list_before=$(listing "$dir")
  local pre=(); [[ -n $as ]] && pre=(setpriv --reuid="$as" --regid="$(id -g "$as")" --clear-groups)
  local t0=$SECONDS
  TMPDIR=$tmp /usr/bin/time -f '%e %M' -o "$work/time" "${pre[@]}" "$@" >"$work/stdout" 2>"$work/stderr" </dev/null
  local code=$?
  local after; after=$(digest "$input")
  local left; left=$(comm -13 <(echo "$list_before") <(listing "$dir") | grep -vxF -- "${out:-/nonexistent}" | grep -v '\.ctxc\.lock$')
  left+=$(listing "$tmp" | sed 's/^/\n/')
  local nleft; nleft=$(printf '%s' "$left" | grep -c .)
  local same=yes; [[ $before == "$after" ]] || same="**no**"
  read -r secs kb < <(tail -1 "$work/time")
  local cmdline=${show:-ctxc ${*:2}}
  printf '| %s | %s | `%s` | %s | %s | %s | %s | %s | %s |\n' "$num" "$(md "$name")" "$(md "$cmdline")" "$code" \
    "$(md "$(head -c 300 "$work/stderr" | head -1)")" "$same" "$nleft" "$secs" "$kb"
}

W=$work
c=$bin
ex=(--provider extractive --threshold 2000 --target 300)
# (1) compact -o onto its own input.
case_ 1a "compact -o S S: the same file" "$W/same/s.jsonl" -- "$c" compact "${ex[@]}" -o "$W/same/s.jsonl" "$W/same/s.jsonl"
case_ 1b "compact -o through a symbolic link to the input" "$W/same/l.jsonl" -- "$c" compact "${ex[@]}" -o "$W/same/link.jsonl" "$W/same/l.jsonl"
case_ 1c "compact -o onto a hard link of the input" "$W/same/h.jsonl" -- "$c" compact "${ex[@]}" -o "$W/same/hard.jsonl" "$W/same/h.jsonl"
case_ 1d "compact -o ./x of /abs/x" "$W/same/r.jsonl" --show "cd \$W/same && ctxc compact ${ex[*]} -o ./r.jsonl \$W/same/r.jsonl" -- bash -c 'cd "$1" && shift && exec "$@"' _ "$W/same" "$c" compact "${ex[@]}" -o ./r.jsonl "$W/same/r.jsonl"
# (2) Codex: a developer message between a call and its output.
case_ 2 "load --as openai, Codex developer message between call and output" "$W/codex/rollout.jsonl" -- "$c" load --as openai "$W/codex/rollout.jsonl"
placeholders=$(grep -c '\[ctxc\] No result was recorded' "$work/stdout")
echo "|  | (2) placeholders \"[ctxc] No result was recorded\" in the output: $placeholders (the call has its output) | | | | | | | |"
# (3) a symlinked folder; (4) an unreadable subfolder.
case_ 3 "stats of a symbolic link to a folder" "$W/real" -- "$c" stats "$W/linkdir"
chmod 000 "$W/locked/private"
if [[ $(id -u) == 0 ]]; then
  chmod 755 "$W/locked"; chmod 644 "$W/locked/a.jsonl"
  case_ 4 "stats of a folder with an unreadable subfolder (as nobody)" "$W/locked/a.jsonl" --as nobody -- "$c" stats "$W/locked"
else
  case_ 4 "stats of a folder with an unreadable subfolder" "$W/locked/a.jsonl" -- "$c" stats "$W/locked"
fi
chmod 755 "$W/locked/private"
# (5) a Claude Code subagent file.
case_ 5 "grep -F alice in subagents/agent-x.jsonl (isSidechain)" "$W/claude" -- "$c" grep -F alice "$W/claude/subagents/agent-x.jsonl"
echo "|  | (5) hits: $(grep -c alice "$work/stdout") | | | | | | | |"
# (6) invalid UTF-8.
case_ 6 "load of a session with invalid UTF-8" "$W/utf8/s.jsonl" -- "$c" load "$W/utf8/s.jsonl"
bad=$(python3 -c 'import json,sys
n=0
for l in open(sys.argv[1],"rb"):
    try: json.loads(l.decode("utf-8"))
    except Exception: n+=1
print(n)' "$work/stdout")
echo "|  | (6) output lines that are not valid JSON in UTF-8: $bad of $(wc -l <"$work/stdout") | | | | | | | |"
# (7) stats - interrupted while reading standard input.
t0=$(date +%s.%N)
python3 - "$c" >"$work/int" <<'EOF'
import subprocess, sys, time, signal
p = subprocess.Popen([sys.argv[1], "stats", "-"], stdin=subprocess.PIPE, stderr=subprocess.PIPE)
p.stdin.write(b'{"role":"user","content":"hi"}\n' * 10000); p.stdin.flush()  # then nothing more
time.sleep(0.5); t = time.time(); p.send_signal(signal.SIGINT)
try:
    p.wait(timeout=10); print(p.returncode, "%.2f" % (time.time() - t), (p.stderr.read().decode().splitlines() or [""])[0])
except subprocess.TimeoutExpired:
    p.kill(); print("hung", "10+", "")
EOF
read -r icode isecs irest <"$work/int"
echo "| 7 | stats - killed with SIGINT while reading stdin | \`ctxc stats - (stdin left open); kill -INT\` | $icode | $(md "$irest") | n/a | n/a | $isecs after the signal | |"
# (8) an endpoint that accepts and never answers.
case_ 8 "compact against an endpoint that never answers" "$W/flags/e.jsonl" --show "ctxc compact --provider openai --model m --endpoint http://127.0.0.1:PORT/v1 --timeout 2s --threshold 2000 --target 300 \$W/flags/e.jsonl" -- "$c" compact --provider openai --model m --endpoint "$silent" --timeout 2s --threshold 2000 --target 300 "$W/flags/e.jsonl"
# (9) negative and absurd flags.
n=0
for f in "compact --keep-tail -1" "compact --threshold -5" "compact --window -1" "compact --target -100" "compact --timeout -1s" \
         "compact -j -3" "compact --idle -5m" "stats --top -1" "stats --window 1"; do
  n=$((n + 1))
  # shellcheck disable=SC2086
  case_ "9.$n" "negative or absurd flag" "$W/flags/e.jsonl" -- "$c" $f "$W/flags/e.jsonl"
done
# (10) a file name with a newline.
case_ 10a "stats of a file whose name holds a newline" "$W/newline" -- "$c" stats "$W/newline/a"$'\n'"b.jsonl"
case_ 10b "stats of its folder" "$W/newline" -- "$c" stats "$W/newline"
# (11) the order of compact --dry-run over a folder.
for i in 1 2 3 4 5; do "$c" compact "${ex[@]}" --dry-run -j 4 "$W/batch" 2>/dev/null | grep -o 's[0-9]*\.jsonl' | tr '\n' ' ' >"$work/order.$i"; echo >>"$work/order.$i"; done
orders=$(sort -u "$work"/order.* | grep -c .)
case_ 11 "compact --dry-run DIR (order: $orders distinct over 5 runs)" "$W/batch" -- "$c" compact "${ex[@]}" --dry-run -j 4 "$W/batch"
# (12) a partial last line, old, compacted in place.
case_ 12 "compact in place, partial last line, old mtime" "$W/partial/s.jsonl" -- "$c" compact "${ex[@]}" "$W/partial/s.jsonl"
# (13) one line of 100 MB: a file, standard input, an archived session.
case_ 13a "stats, one line of 100 MB" "$W/huge/s.jsonl" -- "$c" stats "$W/huge/s.jsonl"
case_ 13b "load, one line of 100 MB" "$W/huge/s.jsonl" --show "ctxc load \$W/huge/s.jsonl >/dev/null" -- bash -c '"$@" >/dev/null' _ "$c" load "$W/huge/s.jsonl"
case_ 13c "compact -o, one line of 100 MB" "$W/huge/s.jsonl" --out "$W/huge/out.jsonl" -- "$c" compact --provider extractive --threshold 1000 -o "$W/huge/out.jsonl" "$W/huge/s.jsonl"
case_ 13d "stats of standard input, one line of 100 MB" "$W/huge/s.jsonl" --show "ctxc stats - <\$W/huge/s.jsonl" -- bash -c '"$1" stats - <"$2"' _ "$c" "$W/huge/s.jsonl"
if [[ -f $W/hugez/s.jsonl.zst ]]; then
  case_ 13e "stats, one line of 100 MB, archived (.zst)" "$W/hugez/s.jsonl.zst" -- "$c" stats "$W/hugez/s.jsonl.zst"
  case_ 13f "load, one line of 100 MB, archived (.zst)" "$W/hugez/s.jsonl.zst" --show "ctxc load \$W/hugez/s.jsonl.zst >/dev/null" -- bash -c '"$@" >/dev/null' _ "$c" load "$W/hugez/s.jsonl.zst"
  case_ 13g "compact -o, one line of 100 MB, archived (.zst)" "$W/hugez/s.jsonl.zst" --out "$W/hugez/out.jsonl" -- "$c" compact --provider extractive --threshold 1000 -o "$W/hugez/out.jsonl" "$W/hugez/s.jsonl.zst"
fi
# (14) garbage.
case_ 14a "stats of 1 MB of random bytes" "$W/garbage/random.jsonl" -- "$c" stats "$W/garbage/random.jsonl"
echo "|  | (14a) stderr lines: $(wc -l <"$work/stderr") | | | | | | | |"
case_ 14b "stats of a pretty-printed JSON array" "$W/garbage/pretty.jsonl" -- "$c" stats "$W/garbage/pretty.jsonl"
echo "|  | (14b) stderr lines: $(wc -l <"$work/stderr") | | | | | | | |"
