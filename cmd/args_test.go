package cmd

import (
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/cmdutil"
)

// TestWrongArgumentsAreUsage: a command given too few or too many arguments is a usage error
// (exit 2), as a wrong flag is, with the count said.
func TestWrongArgumentsAreUsage(t *testing.T) {
	for _, args := range [][]string{
		{"load"}, {"load", "a", "b"}, {"expand"}, {"repair"}, {"handoff", "--to", "codex"},
		{"fork", "--at", "3"}, {"grep"}, {"search"}, {"version", "x"}, {"mcp", "x"}, {"hook"},
	} {
		t.Run(strings.Join(args, "_"), func(t *testing.T) {
			code, _, stderr := runCLI(t, t.TempDir(), args...)
			if code != cmdutil.ExitUsage {
				t.Fatalf("ctxc %s: exit %d, want %d; stderr: %s", strings.Join(args, " "), code, cmdutil.ExitUsage, stderr)
			}
			if !strings.Contains(stderr, "arg") && !strings.Contains(stderr, "unknown command") {
				t.Errorf("ctxc %s: the arguments are not said: %s", strings.Join(args, " "), stderr)
			}
		})
	}
}
