package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/iostreams"
)

// TestReadmeFirstCommand runs the README's first set-up command (its `go run .` steps, in
// process): it must compact the example session that ships in testdata with the built-in
// summarizer and show the file before and after.
func TestReadmeFirstCommand(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "On a fresh machine")
	if !ok {
		t.Fatal("README: no \"On a fresh machine\" section")
	}
	_, block, ok := strings.Cut(after, "```sh\n")
	if !ok {
		t.Fatal("README: no sh block after \"On a fresh machine\"")
	}
	first, _, _ := strings.Cut(block, "\n")
	if c, _, ok := strings.Cut(first, " #"); ok {
		first = c
	}
	steps := strings.Split(first, "&&")
	if len(steps) < 2 {
		t.Fatalf("README first command %q: want compact && stats", first)
	}
	tmp := t.TempDir()
	t.Chdir("..") // the command runs from the repository's root
	var outs, errs []string
	for _, step := range steps {
		rest, ok := strings.CutPrefix(strings.TrimSpace(step), "go run . ")
		if !ok {
			t.Fatalf("README first command: step %q is not `go run . ...`", step)
		}
		args := strings.Fields(rest)
		for i, a := range args {
			if strings.HasPrefix(a, "/tmp/") {
				args[i] = filepath.Join(tmp, filepath.Base(a))
			}
		}
		stdout, stderr, code := runInProcess(t, args)
		if code != 0 {
			t.Fatalf("ctxc %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
		}
		outs, errs = append(outs, stdout), append(errs, stderr)
		if args[0] == "compact" && !strings.Contains(args[len(args)-1], "testdata/example/") {
			t.Errorf("README first command compacts %s, not the shipped example", args[len(args)-1])
		}
	}
	if !strings.HasPrefix(strings.TrimSpace(steps[0]), "go run . compact --provider extractive") {
		t.Errorf("README first command does not start by compacting with the built-in summarizer: %q", steps[0])
	}
	if !strings.Contains(errs[0], "compacted testdata/example/session.jsonl → ") || !strings.Contains(errs[0], "(extractive)") {
		t.Errorf("compact said %q", errs[0])
	}
	// Before and after, and the after is smaller.
	last := outs[len(outs)-1]
	if !strings.Contains(last, "claude-code") || !strings.Contains(last, "ctxc") || !strings.Contains(last, "testdata/example/session.jsonl") {
		t.Errorf("stats does not show before and after:\n%s", last)
	}
	stdout, _, code := runInProcess(t, []string{"stats", "--json", "testdata/example/session.jsonl", filepath.Join(tmp, "ctxc-example.jsonl")})
	if code != 0 {
		t.Fatalf("stats --json: exit %d", code)
	}
	var eff []int64
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var v struct {
			Type string `json:"type"`
			Eff  int64  `json:"effective_tokens"`
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatal(err)
		}
		if v.Type == "file" {
			eff = append(eff, v.Eff)
		}
	}
	if len(eff) != 2 || eff[1]*4 > eff[0] {
		t.Errorf("effective tokens before/after %v: want the compacted context under a quarter of the original", eff)
	}
}

func runInProcess(t *testing.T, args []string) (stdout, stderr string, code int) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{IO: ios, Getenv: func(string) string { return "" }, Now: time.Now, Build: cmdutil.BuildInfo{Version: "test"}.Resolve()}
	code = Run(context.Background(), f, args)
	return out.String(), errOut.String(), code
}
