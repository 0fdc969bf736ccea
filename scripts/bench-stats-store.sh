#!/usr/bin/env bash
# Benchmark `ctxc stats` on an SQLite session store (opencode's), against sqlite3's own dump of
# the same store, in one run:
#   scripts/bench-stats-store.sh [SESSIONS] [MESSAGES_PER_SESSION]     (default 2000 and 60)
# Generates an opencode store (cached in $CTXC_BENCH_DIR, default /tmp/ctxc-bench) with the
# tables and JSON columns opencode 1.18 writes (session, message, part; a user prompt, then an
# assistant step with a tool call and its output and an answer, with step-start/step-finish
# parts and usage), in WAL mode as opencode runs it. Runs each tool in turn for CTXC_BENCH_ROUNDS
# rounds (default 3) and prints the best wall-clock time, sessions a second and MB/s of the
# store, and the peak RSS of that run: `sqlite3 STORE .dump` is the floor of reading every row
# once.
set -euo pipefail
cd "$(dirname "$0")/.."
sessions=${1:-2000}
per=${2:-60}
dir=${CTXC_BENCH_DIR:-/tmp/ctxc-bench}
mkdir -p "$dir"
store=$dir/opencode-$sessions-$per/opencode.db
if [[ ! -s $store ]]; then
  echo "generating $store ..." >&2
  mkdir -p "$(dirname "$store")"
  python3 - "$sessions" "$per" "$store.tmp" <<'PY'
import json, random, sqlite3, sys
sessions, per, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rnd = random.Random(1)
words = "the build test file function error value module change check read write list parse line token context session agent model tool result".split()
def text(n):
    return " ".join(rnd.choice(words) for _ in range(n))
def dump(o):
    return json.dumps(o, separators=(",", ":"))
db = sqlite3.connect(path)
db.execute("PRAGMA journal_mode=wal")
db.executescript("""
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, slug text NOT NULL, directory text NOT NULL,
  title text NOT NULL, version text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL,
  time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX message_session_idx ON message (session_id);
CREATE INDEX part_message_idx ON part (message_id);
CREATE INDEX part_session_idx ON part (session_id);
""")
t = 1795872890000
for s in range(sessions):
    sid = f"ses_{s:08d}{rnd.getrandbits(40):010x}"
    cwd = f"/home/dev/project{s % 37}"
    db.execute("INSERT INTO session VALUES (?,?,?,?,?,?,?,?)", (sid, f"prj{s % 37}", f"slug-{s}", cwd, text(5), "1.18.33", t, t))
    parent = None
    for m in range(per):
        t += 1000
        mid = f"msg_{s:06d}{m:05d}{rnd.getrandbits(32):08x}"
        parts = []
        if m % 2 == 0:
            info = {"role": "user", "time": {"created": t}, "agent": "build", "model": {"providerID": "fake", "modelID": "fake-model"}}
            parts.append({"type": "text", "text": text(rnd.randint(10, 80))})
        else:
            info = {"parentID": parent, "role": "assistant", "mode": "build", "agent": "build", "path": {"cwd": cwd, "root": "/"},
                    "cost": 0, "tokens": {"total": 1105, "input": 1000, "output": 105, "reasoning": 0, "cache": {"write": 0, "read": 500}},
                    "modelID": "fake-model", "providerID": "fake", "time": {"created": t, "completed": t + 900}, "finish": "stop"}
            parts.append({"type": "step-start"})
            if m % 4 == 1:
                parts.append({"type": "tool", "tool": "read", "callID": f"call_{m}", "state": {"status": "completed",
                              "input": {"filePath": f"{cwd}/src/file{m % 97}.go"}, "output": text(rnd.randint(200, 700)),
                              "title": f"src/file{m % 97}.go", "time": {"start": t, "end": t + 10}}})
            parts.append({"type": "text", "text": text(rnd.randint(30, 150))})
            parts.append({"type": "step-finish", "reason": "stop", "cost": 0,
                          "tokens": {"input": 1000, "output": 105, "reasoning": 0, "cache": {"write": 0, "read": 500}}})
        db.execute("INSERT INTO message VALUES (?,?,?,?,?)", (mid, sid, t, t, dump(info)))
        for k, p in enumerate(parts):
            db.execute("INSERT INTO part VALUES (?,?,?,?,?,?)", (f"prt_{mid[4:]}{k:02d}", mid, sid, t, t, dump(p)))
        parent = mid
db.commit()
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.close()
PY
  mv "$store.tmp" "$store"
fi
go build -o "$dir/ctxc" .
cat "$store" > /dev/null # page cache: every tool reads from memory
bytes=$(stat -c %s "$store")
once() { # once NAME CMD...: the best (least) wall-clock time of a tool's runs is kept in t_NAME, its peak RSS in m_NAME
  local name=$1; shift
  /usr/bin/time -o "$dir/time.out" -f '%e %M' "$@" > /dev/null 2> "$dir/run.err" || { cat "$dir/run.err" >&2; exit 1; }
  local out t best
  out=$(tail -1 "$dir/time.out")
  t=${out% *}
  eval "best=\${t_$name:-}"
  if [[ -z $best ]] || awk "BEGIN{exit !($t < $best)}"; then eval "t_$name=$t m_$name=${out#* }"; fi
}
row() { # row NAME
  local t m
  eval "t=\$t_$1 m=\$m_$1"
  printf '%-8s %8.2f s %10.0f sessions/s %7.0f MB/s %7.0f MB\n' "$1" "$t" "$(awk "BEGIN{print $sessions/($t+1e-9)}")" "$(awk "BEGIN{print $bytes/1e6/($t+1e-9)}")" "$(awk "BEGIN{print $m/1024}")"
}
counted=$("$dir/ctxc" stats --json "$store" | grep -c '"type":"file"' || true)
if [[ $counted != "$sessions" ]]; then
  echo "ctxc stats counted $counted sessions of $sessions" >&2
  exit 1
fi
rounds=${CTXC_BENCH_ROUNDS:-3}
for _ in $(seq "$rounds"); do
  once sqlite3 sqlite3 "$store" .dump
  once ctxc "$dir/ctxc" stats --json "$store"
done
echo "store: $store ($bytes bytes, $sessions sessions of $per messages), $(nproc) cores, best of $rounds rounds"
printf '%-8s %10s %19s %11s %10s\n' tool time sessions throughput 'peak RSS'
row sqlite3
row ctxc
awk "BEGIN{printf \"ctxc stats: %.2fx the time of sqlite3 .dump\n\", $t_ctxc/$t_sqlite3}"
