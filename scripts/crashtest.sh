#!/usr/bin/env bash
# Kill `ctxc compact` with SIGKILL at random moments, N times (default 1000), and check after
# each kill that the transcript loads, that no byte it had before changed, and that at most one
# complete marker was added (and the same for Claude Code, Codex and pi appends, a quarter as
# many trials each):   scripts/crashtest.sh 1000
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
CTXC_CRASH_TRIALS=$n go test -count=1 -run '^TestCrashSafety(Native)?$' -v -timeout 60m ./internal/compact/ | grep -E 'trials|^(ok|FAIL|---)'
