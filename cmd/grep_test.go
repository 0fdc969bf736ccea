package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/iostreams"
)

// TestGrepHighlight: matches are highlighted on a terminal only.
func TestGrepHighlight(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	os.WriteFile(p, []byte(`{"role":"user","content":"find the quokka, then the other quokka"}`+"\n"), 0o644)
	run := func(tty bool, env map[string]string) string {
		ios, _, out, _ := iostreams.Test()
		ios.SetTTY(false, tty, false)
		f := &cmdutil.Factory{IO: ios, Getenv: func(k string) string {
			if k == "HOME" || k == "XDG_CONFIG_HOME" {
				return dir
			}
			return env[k]
		}, Now: time.Now, Build: cmdutil.BuildInfo{Version: "test"}}
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

// TestGrepJobsKeepOrder: files searched several at once print what one at a time prints, in
// the order given (hits, -C separators, --json objects and the errors of files that fail).
func TestGrepJobsKeepOrder(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := 0; i < 40; i++ {
		p := filepath.Join(dir, fmt.Sprintf("s%02d.jsonl", i))
		var b strings.Builder
		for k := 0; k < 1+i%7; k++ {
			word := "plain"
			if (i+k)%3 == 0 {
				word = "quokka"
			}
			fmt.Fprintf(&b, `{"role":"user","content":"line %d of %d: %s"}`+"\n", k, i, word)
		}
		if i == 17 {
			b.WriteString("not json at all\n")
		}
		os.WriteFile(p, []byte(b.String()), 0o644)
		paths = append(paths, p)
		if i == 9 {
			paths = append(paths, filepath.Join(dir, "missing.jsonl"))
		}
	}
	run := func(args ...string) (string, string, int) {
		ios, _, out, errOut := iostreams.Test()
		f := &cmdutil.Factory{IO: ios, Getenv: func(k string) string {
			if k == "HOME" || k == "XDG_CONFIG_HOME" {
				return dir
			}
			return ""
		}, Now: time.Now, Build: cmdutil.BuildInfo{Version: "test"}}
		code := Run(context.Background(), f, append(args, paths...))
		return out.String(), errOut.String(), code
	}
	for _, args := range [][]string{{"grep", "quokka"}, {"grep", "-C", "1", "quokka"}, {"grep", "--json", "quokka"}, {"--strict", "grep", "quokka"}} {
		out1, err1, code1 := run(append(args[:len(args):len(args)], "-j", "1")...)
		outN, errN, codeN := run(append(args[:len(args):len(args)], "-j", "4")...)
		if out1 != outN || err1 != errN || code1 != codeN {
			t.Errorf("%v: -j 1 and -j 4 differ:\n%s%s(exit %d)\n--\n%s%s(exit %d)", args, out1, err1, code1, outN, errN, codeN)
		}
		if !strings.Contains(out1, "quokka") || !strings.Contains(err1, "missing.jsonl") {
			t.Errorf("%v: want hits and the missing file's error:\n%s%s", args, out1, err1)
		}
	}
}

// TestGrepMemoryAboveTheIndex: what grep --index keeps for the whole search (the index's view
// of the sessions) raises the memory limit, so that the limit bounds only what reading the
// files adds and the collector does not run without pause.
func TestGrepMemoryAboveTheIndex(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	defer grepMemory()()
	kept := make([]byte, 96<<20)
	for i := range kept {
		kept[i] = byte(i)
	}
	grepMemoryAbove()
	if limit := debug.SetMemoryLimit(-1); limit < statsMemoryLimit+int64(len(kept)) {
		t.Fatalf("memory limit %d MiB with %d MiB kept: want at least %d MiB", limit>>20, len(kept)>>20, (statsMemoryLimit+int64(len(kept)))>>20)
	}
	runtime.KeepAlive(kept)
}
