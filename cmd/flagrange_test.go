package cmd

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/iostreams"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// numericFlag is one numeric or duration flag of one command.
type numericFlag struct {
	path []string // the command's words after ctxc
	flag *pflag.Flag
}

// numericFlags walks the command tree and lists every numeric or duration flag of every
// command: a flag added tomorrow is in the list.
func numericFlags(t *testing.T) []numericFlag {
	t.Helper()
	ios, _, _, _ := iostreams.Test()
	root := NewRootCmd(&cmdutil.Factory{IO: ios, Getenv: func(string) string { return "" }, Now: time.Now})
	var out []numericFlag
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
			if cmdutil.IsNumericFlag(fl) {
				out = append(out, numericFlag{path, fl})
			}
		})
		for _, s := range c.Commands() {
			walk(s, append(append([]string(nil), path...), s.Name()))
		}
	}
	walk(root, nil)
	if len(out) < 30 {
		t.Fatalf("only %d numeric flags found: the walk is broken", len(out))
	}
	return out
}

// requiredArgs are arguments the commands that require some are given, so that the flag is what
// is wrong.
var requiredArgs = map[string][]string{
	"grep": {"x", "s.jsonl"}, "search": {"x"}, "expand": {"s.jsonl"}, "hook": {"claude-code"},
	"hooks install": {"claude-code"}, "handoff": {"--to", "codex", "s.jsonl"}, "fork": {"s.jsonl"},
}

// outOfRange returns values just outside a flag's declared range: below its lowest and above its
// highest, and a negative value (never a default).
func outOfRange(t *testing.T, fl *pflag.Flag) []string {
	r := fl.Annotations[cmdutil.RangeAnnotation]
	if fl.Value.Type() == "duration" {
		lo, _ := time.ParseDuration(r[0])
		hi, _ := time.ParseDuration(r[1])
		vals := []string{"-1s", (hi + time.Second).String()}
		if lo > 0 {
			vals = append(vals, (lo / 2).String())
		}
		return vals
	}
	lo, _ := strconv.ParseFloat(r[0], 64)
	hi, _ := strconv.ParseFloat(r[1], 64)
	vals := []string{"-1", strconv.FormatFloat(hi*2+1, 'f', -1, 64)}
	if lo > 1 {
		vals = append(vals, strconv.FormatFloat(lo-1, 'f', -1, 64))
	}
	return vals
}

// TestEveryNumericFlagHasARange: every numeric or duration flag of every command declares the
// range it accepts; a value outside it, on the command line, is exit 2 with the flag named and
// the range said, before the command does anything.
func TestEveryNumericFlagHasARange(t *testing.T) {
	for _, nf := range numericFlags(t) {
		name := strings.Join(append(append([]string{"ctxc"}, nf.path...), "--"+nf.flag.Name), " ")
		r, ok := nf.flag.Annotations[cmdutil.RangeAnnotation]
		if !ok || len(r) != 3 {
			t.Errorf("%s: no range declared (cmdutil.IntRange, cmdutil.FloatRange or cmdutil.DurationRange beside the flag)", name)
			continue
		}
		if nf.flag.Value.Type() != "duration" {
			if lo, _ := strconv.ParseFloat(r[0], 64); lo < 0 {
				t.Errorf("%s: a negative value is accepted (range %s to %s)", name, r[0], r[1])
			}
		}
		for _, v := range outOfRange(t, nf.flag) {
			t.Run(strings.Join(append(nf.path, nf.flag.Name, v), "_"), func(t *testing.T) {
				dir := t.TempDir()
				args := append(append([]string(nil), nf.path...), "--"+nf.flag.Name+"="+v)
				args = append(args, requiredArgs[strings.Join(nf.path, " ")]...)
				code, _, stderr := runCLI(t, dir, args...)
				if code != cmdutil.ExitUsage {
					t.Fatalf("%s=%s: exit %d, want %d; stderr: %s", name, v, code, cmdutil.ExitUsage, stderr)
				}
				if !strings.Contains(stderr, "--"+nf.flag.Name+" "+v) || !strings.Contains(stderr, "want ") {
					t.Errorf("%s=%s: the flag, its value or its range is not said: %s", name, v, stderr)
				}
			})
		}
	}
}

// TestFlagRangesFromSettings: a value out of range from the environment or the config file is
// refused as well (exit 78), naming where it came from.
func TestFlagRangesFromSettings(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCLIEnv(t, dir, map[string]string{"CTXC_KEEP_TAIL": "-1"}, "compact", "--dry-run", "x.jsonl")
	if code != cmdutil.ExitConfig || !strings.Contains(stderr, "CTXC_KEEP_TAIL=-1") || !strings.Contains(stderr, "want 0 to") {
		t.Errorf("CTXC_KEEP_TAIL=-1: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLIEnv(t, dir, map[string]string{"CTXC_TIMEOUT": "-1s"}, "compact", "--dry-run", "x.jsonl")
	if code != cmdutil.ExitConfig || !strings.Contains(stderr, "CTXC_TIMEOUT=-1s") {
		t.Errorf("CTXC_TIMEOUT=-1s: exit %d, stderr %q", code, stderr)
	}
}

// TestFlagRangeAcceptsItsBounds: the bounds themselves, and 0 where it stands for a default,
// pass the check.
func TestFlagRangeAcceptsItsBounds(t *testing.T) {
	for _, nf := range numericFlags(t) {
		r := nf.flag.Annotations[cmdutil.RangeAnnotation]
		if len(r) != 3 {
			continue // reported by TestEveryNumericFlagHasARange
		}
		vals := []string{r[0], r[1]}
		if r[2] != "" {
			vals = append(vals, "0")
		}
		for _, v := range vals {
			fl := *nf.flag
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			fs.AddFlag(&fl)
			if err := fs.Set(fl.Name, v); err != nil {
				t.Fatalf("--%s %s: %v", fl.Name, v, err)
			}
			if err := cmdutil.CheckRanges(fs, nil); err != nil {
				t.Errorf("%v: --%s %s refused: %v", nf.path, fl.Name, v, err)
			}
		}
	}
}
