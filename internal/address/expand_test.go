package address

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/transcript"
)

// TestExpand: the command line and the MCP server's tools expand paths by one rule; the command
// line also takes "-", patterns and paths that do not exist yet (each said when it is opened),
// where a tool's path must be a file, a folder or a store's session.
func TestExpand(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "p", "a.jsonl"), plainText)
	write(t, filepath.Join(dir, "p", "b.jsonl.zst"), plainText)
	write(t, filepath.Join(dir, "p", "notes#1.jsonl"), plainText)
	write(t, filepath.Join(dir, "p", "readme.txt"), "x")
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "st"), 0o755); err != nil {
		t.Fatal(err)
	}
	openclawStore(t, filepath.Join(dir, "st"))
	if err := os.Symlink("p", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name        string
		args        []string
		commandLine bool
		want        []string // relative to dir
		say, err    string
	}{
		{"a folder", []string{"p"}, false, []string{"p/a.jsonl", "p/b.jsonl.zst", "p/notes#1.jsonl"}, "", ""},
		{"a link to a folder", []string{"link"}, true, []string{"link/a.jsonl", "link/b.jsonl.zst", "link/notes#1.jsonl"}, "", ""},
		{"a file as it is, whatever its name", []string{"p/readme.txt"}, false, []string{"p/readme.txt"}, "", ""},
		{"a store for its sessions", []string{"st/openclaw-agent.sqlite"}, false, []string{"st/openclaw-agent.sqlite#s1"}, "", ""},
		{"a store's session", []string{"st/openclaw-agent.sqlite#s1"}, false, []string{"st/openclaw-agent.sqlite#s1"}, "", ""},
		{"a store's session that is not there yet", []string{"st/openclaw-agent.sqlite#s9"}, false, []string{"st/openclaw-agent.sqlite#s9"}, "", ""},
		{"an empty folder is said", []string{"empty"}, true, nil, "ctxc: DIR/empty: no transcript found (no *.jsonl or *.jsonl.zst file in this directory or below it)\n", ""},
		{"a pattern", []string{"p/*.jsonl"}, true, []string{"p/a.jsonl", "p/notes#1.jsonl"}, "", ""},
		{"a pattern that matches nothing is said", []string{"p/*.md"}, true, nil, "ctxc: DIR/p/*.md: no file matches: no transcript found\n", ""},
		{"a bad pattern", []string{"p/[.md"}, true, nil, "", `bad pattern "DIR/p/[.md": syntax error in pattern`},
		{"standard input", []string{"-"}, true, []string{"-"}, "", ""},
		{"a missing file is kept, to be said when opened", []string{"gone.jsonl"}, true, []string{"gone.jsonl"}, "", ""},
		{"STORE# with an empty id is kept, to be said when opened", []string{"st/openclaw-agent.sqlite#"}, true, []string{"st/openclaw-agent.sqlite#"}, "", ""},
		{"a tool: a missing file", []string{"gone.jsonl"}, false, nil, "", "stat DIR/gone.jsonl: no such file or directory"},
		{"a tool: STORE# with an empty id", []string{"st/openclaw-agent.sqlite#"}, false, nil, "", "stat DIR/st/openclaw-agent.sqlite#: no such file or directory"},
		{"a tool: no standard input", []string{"-"}, false, nil, "", "stat -: no such file or directory"},
		{"a tool: no patterns", []string{"p/*.jsonl"}, false, nil, "", "stat DIR/p/*.jsonl: no such file or directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var say strings.Builder
			e := &Expander{Finder: transcript.NewFinder(true, filepath.WalkDir), Say: &say, CommandLine: c.commandLine}
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = a
				if a != "-" {
					args[i] = filepath.Join(dir, a)
				}
			}
			got, err := e.Expand(args)
			user := func(s string) string { return strings.ReplaceAll(s, dir, "DIR") }
			if c.err != "" {
				if err == nil || user(err.Error()) != c.err {
					t.Fatalf("error %v, want %s", err, c.err)
				}
				if _, pattern := errors.AsType[*PatternError](err); pattern != strings.HasPrefix(c.err, "bad pattern") {
					t.Errorf("error %T: a PatternError only for a bad pattern", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var rel []string
			for _, g := range got {
				if r, err := filepath.Rel(dir, g); err == nil && g != "-" {
					g = r
				}
				rel = append(rel, g)
			}
			if !slices.Equal(rel, c.want) {
				t.Errorf("got %q, want %q", rel, c.want)
			}
			if user(say.String()) != c.say {
				t.Errorf("said %q, want %q", user(say.String()), c.say)
			}
		})
	}
}
