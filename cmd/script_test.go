package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxc/ctxc/internal/agentcheck"
	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript scenarios run ctxc as a program (the test binary itself).
func TestMain(m *testing.M) {
	testscript.Main(agentcheck.Counted(m), map[string]func(){
		"ctxc": func() {
			code := Main(cmdutil.BuildInfo{Version: "test"})
			if p := os.Getenv("CTXC_EXITCODE_FILE"); p != "" {
				os.WriteFile(p, []byte(strconv.Itoa(code)), 0o644)
			}
			os.Exit(code)
		},
	})
}

// TestScripts runs the user stories in testdata/script/*.txtar. Besides testscript's built-ins
// they have:
//
//	exitcode N          the last ctxc run exited with N
//	samefile A B        A and B have the same bytes (like cmp, without a diff of huge files)
//	prefix A B          file B starts with all the bytes of file A (append-only check)
//	gensessions DIR N   writes N small openai-format sessions into DIR
//	sleep-until-old F   sets F's modification time to an hour ago (not live)
//	deepfolder DIR      makes folders below DIR until their path is too long to open (unreadable
//	                    by every user, root included: a test of an unreadable folder as root)
//
// The condition [root] holds when the tests run as root (who reads a chmod 000 folder).
func TestScripts(t *testing.T) {
	samples, _ := filepath.Abs("../../shared/samples")
	example, _ := filepath.Abs("../testdata/example")
	fixtures, _ := filepath.Abs("../testdata/fixtures")
	testdata, _ := filepath.Abs("../testdata")
	testscript.Run(t, testscript.Params{
		Dir: "../testdata/script",
		Setup: func(e *testscript.Env) error {
			e.Setenv("CTXC_EXITCODE_FILE", filepath.Join(e.WorkDir, ".exitcode"))
			e.Setenv("HOME", e.WorkDir)
			e.Setenv("XDG_CONFIG_HOME", filepath.Join(e.WorkDir, ".config"))
			e.Setenv("SAMPLES", samples)
			e.Setenv("EXAMPLE", example) // the example session the README's first command compacts
			e.Setenv("FIXTURES", fixtures)
			e.Setenv("TESTDATA", testdata) // (the agents' public files, kept with their licences)
			for _, k := range []string{"CTXC_TEST_OLLAMA_URL", "CTXC_TEST_OLLAMA_MODEL"} {
				e.Setenv(k, os.Getenv(k))
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "samples":
				_, err := os.Stat(samples)
				return err == nil, nil
			case "ollama":
				return os.Getenv("CTXC_TEST_OLLAMA_URL") != "", nil
			case "root":
				return os.Geteuid() == 0, nil
			}
			return false, nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":        cmdExitCode,
			"samefile":        cmdSameFile,
			"prefix":          cmdPrefix,
			"jsonlines":       cmdJSONLines,
			"gensessions":     cmdGenSessions,
			"sleep-until-old": cmdMakeOld,
			"deepfolder":      cmdDeepFolder,
		},
		UpdateScripts: os.Getenv("UPDATE_GOLDEN") != "",
	})
}

func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: exitcode N")
	}
	got := strings.TrimSpace(ts.ReadFile(".exitcode"))
	if (got == args[0]) == neg {
		ts.Fatalf("exit code %s, want %s%s", got, map[bool]string{true: "not ", false: ""}[neg], args[0])
	}
}

func cmdSameFile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: samefile A B")
	}
	a, b := ts.ReadFile(args[0]), ts.ReadFile(args[1])
	if (a == b) == neg {
		ts.Fatalf("%s and %s: same=%v, want %v", args[0], args[1], a == b, !neg)
	}
}

func cmdPrefix(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: prefix A B")
	}
	a, b := ts.ReadFile(args[0]), ts.ReadFile(args[1])
	if strings.HasPrefix(b, a) == neg {
		ts.Fatalf("%s starts with %s: %v, want %v", args[1], args[0], !neg, !neg)
	}
}

// cmdJSONLines checks that every line of each file is valid JSON in valid UTF-8 (negated: that
// some line is not).
func cmdJSONLines(ts *testscript.TestScript, neg bool, args []string) {
	for _, a := range args {
		bad := ""
		for i, l := range strings.Split(strings.TrimSuffix(ts.ReadFile(a), "\n"), "\n") {
			if !utf8.ValidString(l) || !json.Valid([]byte(l)) {
				bad = fmt.Sprintf("%s:%d: not valid UTF-8 JSON: %q", a, i+1, l)
				break
			}
		}
		if (bad == "") == neg {
			ts.Fatalf("%s: every line valid UTF-8 JSON: %v, want %v (%s)", a, bad == "", !neg, bad)
		}
	}
}

func cmdMakeOld(ts *testscript.TestScript, neg bool, args []string) {
	for _, a := range args {
		p := ts.MkAbs(a)
		old := timeNow().Add(-3600e9)
		if err := os.Chtimes(p, old, old); err != nil {
			ts.Fatalf("%v", err)
		}
	}
}

// cmdDeepFolder makes nested folders of long names below DIR, each made relative to its parent
// (os.Root), until the path from DIR is longer than any system opens (4,096 bytes on Linux).
func cmdDeepFolder(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: deepfolder DIR")
	}
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	r, err := os.OpenRoot(dir)
	ts.Check(err)
	name := strings.Repeat("d", 250)
	for depth := 0; depth*(len(name)+1) <= 4096+len(name); depth++ {
		ts.Check(r.Mkdir(name, 0o755))
		sub, err := r.OpenRoot(name)
		ts.Check(err)
		r.Close()
		r = sub
	}
	r.Close()
}

func cmdGenSessions(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: gensessions DIR N")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("%v", err)
	}
	dir := ts.MkAbs(args[0])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		ts.Fatalf("%v", err)
	}
	for i := 0; i < n; i++ {
		p := filepath.Join(dir, "s"+strconv.Itoa(i)+".jsonl")
		if err := os.WriteFile(p, []byte(genSession(i, 40+i%7*10)), 0o644); err != nil {
			ts.Fatalf("%v", err)
		}
		old := timeNow().Add(-3600e9)
		os.Chtimes(p, old, old)
	}
}
