#!/usr/bin/env bash
# The agent's own compaction against ctxc's, per category, on sessions with compactions:
#   scripts/audit-table.sh [FILE...]   (default: the shared samples and fixtures that have one)
# For each compaction an agent recorded in a file, `ctxc audit` scores the agent's summary; then
# the file is cut just before that compaction's record (the conversation the agent compacted) and
# ctxc compacts the same context (--provider extractive, in place: with the agent's own records), and
# `ctxc audit` scores ctxc's. Prints one markdown row per compaction: kept/facts per category, with
# facts matched as people write them, and beside it (when it differs) the count with --strict
# (verbatim only).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
go build -o "$dir/ctxc" .
ctxc=$dir/ctxc
files=("$@")
if ((${#files[@]} == 0)); then
  files=(../shared/samples/pi/agent-sessions-v3-fixture-model-2-compactions.jsonl testdata/fixtures/claude-2.1.330-manual-compact-hook.jsonl testdata/fixtures/claude-2.1.330-guarded-compact.jsonl testdata/fixtures/codex-0.169-guarded-compact.jsonl
    testdata/fixtures/pi-v1-two-compactions.jsonl testdata/fixtures/claude-compact-boundary.jsonl
    testdata/audit-labels/claude-2.0.65-auto-compact-relative-paths.jsonl testdata/audit-labels/claude-2.0.65-auto-compact-lossy.jsonl)
fi
echo "| session | compaction | by | rules | last request | files modified | refs | requests | errors | files read | kept |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for f in "${files[@]}"; do
  [[ -f $f ]] || continue
  "$ctxc" audit --json "$f" > "$dir/agent.jsonl" || true
  "$ctxc" audit --json --strict "$f" > "$dir/agent-strict.jsonl" || true
  python3 - "$f" "$dir" "$ctxc" <<'PY'
import json, os, subprocess, sys
path, work, ctxc = sys.argv[1], sys.argv[2], sys.argv[3]
cats = ["rules", "last_request", "files_modified", "refs", "requests", "errors", "files_read"]
def counts(c, k, restored):
    v = c.get("categories", {}).get(k) if k else c["total"]
    if not v:
        return None
    return v["kept"] + (v.get("restored", 0) if restored else 0), v["facts"]
def row(name, idx, by, c, strict, restored=True):
    cells = []
    for k in cats:
        n = counts(c, k, restored)
        if not n:
            cells.append("-")
            continue
        cell = f"{n[0]}/{n[1]}"
        s = counts(strict, k, restored) if strict else None
        if s and s[0] != n[0]:
            cell += f" (strict {s[0]})"
        cells.append(cell)
    kept, facts = counts(c, None, restored)
    pct = 100 * kept / facts if facts else 100
    total = f"{kept}/{facts} ({pct:.0f}%)"
    s = counts(strict, None, restored) if strict else None
    if s and s[0] != kept:
        total += f" (strict {s[0]}/{facts})"
    print(f"| {name} | {idx} (line {c['line']}) | {by} | " + " | ".join(cells) + f" | {total} |")
def strict_of(lines, c):
    for l in lines:
        s = json.loads(l)
        if s.get("type") == "compaction" and s["index"] == c["index"]:
            return s
    return None
data = open(path, "rb").read()
lines = data.split(b"\n")
agent_strict = open(os.path.join(work, "agent-strict.jsonl")).read().splitlines()
for l in open(os.path.join(work, "agent.jsonl")):
    c = json.loads(l)
    if c.get("type") != "compaction" or c.get("by") != "agent" or c.get("unreadable"):
        continue
    name = os.path.basename(path)
    strict = strict_of(agent_strict, c)
    row(name, c["index"], "the agent", c, strict, restored=False)
    if c["total"].get("restored"):
        row(name, c["index"], "the agent + ctxc's guard", c, strict)
    # The same context compacted by ctxc: the file cut before the agent's record.
    cut = os.path.join(work, "cut.jsonl")
    open(cut, "wb").write(b"\n".join(lines[: c["line"] - 1]) + b"\n")
    os.utime(cut, (0, 0))  # not a live session: compacted in place, with the agent's own records
    out = cut
    st = json.loads(subprocess.run([ctxc, "stats", "--json", cut], capture_output=True, text=True).stdout.splitlines()[0])
    threshold = max(1, st["effective_tokens"] - 1)  # just over: ctxc must compact
    r = subprocess.run([ctxc, "compact", "-q", "--provider", "extractive", "--threshold", str(threshold), "--keep-tail", "2", cut])
    if r.returncode != 0 or os.path.getsize(cut) == sum(len(x) + 1 for x in lines[: c["line"] - 1]):
        print(f"| {name} | {c['index']} | ctxc | too small to compact | | | | | | | |")
        continue
    res = subprocess.run([ctxc, "audit", "--json", out], capture_output=True, text=True).stdout.splitlines()
    res_strict = subprocess.run([ctxc, "audit", "--json", "--strict", out], capture_output=True, text=True).stdout.splitlines()
    for l2 in res:
        c2 = json.loads(l2)
        if c2.get("type") == "compaction":
            c2["line"] = c["line"]
            row(name, c["index"], "ctxc", c2, strict_of(res_strict, c2))
PY
done
