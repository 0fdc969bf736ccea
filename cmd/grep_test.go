package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGrepHighlight: matches are highlighted on a terminal only.
func TestGrepHighlight(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	os.WriteFile(p, []byte(`{"role":"user","content":"find the quokka, then the other quokka"}`+"\n"), 0o644)
	run := func(tty bool, env map[string]string) string {
		ios, _, out, _ := TestStreams()
		ios.SetTTY(false, tty, false)
		f := &Factory{IO: ios, Getenv: func(k string) string {
			if k == "HOME" || k == "XDG_CONFIG_HOME" {
				return dir
			}
			return env[k]
		}, Now: time.Now, Build: BuildInfo{Version: "test"}}
		if code := Run(context.Background(), f, []string{"grep", "quokka", p}); code != 0 {
			t.Fatalf("exit %d", code)
		}
		return out.String()
	}
	if got := run(true, nil); strings.Count(got, "\x1b[1;31mquokka\x1b[0m") != 2 {
		t.Errorf("terminal: %q", got)
	}
	if got := run(false, nil); strings.Contains(got, "\x1b[") || !strings.HasSuffix(got, "s.jsonl:1: user: find the quokka, then the other quokka\n") {
		t.Errorf("pipe: %q", got)
	}
}
