package cmd

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/iostreams"
)

// runStatsTTY runs ctxc stats with standard output a terminal or not.
func runStatsTTY(t *testing.T, tty bool, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	ios, _, out, errOut := iostreams.Test()
	ios.SetTTY(false, tty, false)
	f := &cmdutil.Factory{IO: ios, Getenv: func(k string) string {
		if k == "HOME" || k == "XDG_CONFIG_HOME" {
			return dir
		}
		return ""
	}, Now: time.Now, Build: cmdutil.BuildInfo{Version: "test"}}
	if code := Run(context.Background(), f, append([]string{"stats"}, args...)); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	return out.String()
}

// TestStatsWindowBar: on a terminal, stats draws how full each window is; into a pipe it does not.
func TestStatsWindowBar(t *testing.T) {
	fx := func(n string) string { return filepath.Join("..", "testdata", "fixtures", n) }
	claude, openai := fx("claude-2.1.330-manual-compact-hook.jsonl"), fx("openai-tools.jsonl")
	got := runStatsTTY(t, true, claude, openai)
	lines := strings.Split(got, "\n")
	if !strings.Contains(lines[0], "FULL") {
		t.Fatalf("no FULL column on a terminal:\n%s", got)
	}
	// The Claude Code session's last recorded context, 22,800 tokens, of claude-sonnet-4-5's
	// 200,000 in the price table: 11%, one cell of ten.
	if !strings.Contains(got, "█░░░░░░░░░  11%") {
		t.Errorf("no bar of 11%%:\n%s", got)
	}
	for _, l := range lines {
		if strings.HasSuffix(l, "openai-tools.jsonl") && !strings.Contains(l, " - ") {
			t.Errorf("a session without a known window has a bar: %q", l)
		}
	}
	if got := runStatsTTY(t, false, claude); strings.Contains(got, "FULL") || strings.Contains(got, "█") {
		t.Errorf("a bar into a pipe:\n%s", got)
	}
	if got := runStatsTTY(t, true, "--window", "45600", claude); !strings.Contains(got, "█████░░░░░  50%") {
		t.Errorf("--window does not set the bar's window:\n%s", got)
	}
}

func TestDrawBar(t *testing.T) {
	for share, want := range map[float64]string{0: "░░░░░░░░░░   0%", 0.5: "█████░░░░░  50%", 1: "██████████ 100%", 1.7: "██████████ 170%", -1: "░░░░░░░░░░ -100%"} {
		if got := drawBar(share); got != want {
			t.Errorf("drawBar(%v) = %q, want %q", share, got, want)
		}
	}
}
