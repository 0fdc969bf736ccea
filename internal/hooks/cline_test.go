package hooks

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClineInstallUninstallStatus: the steps of a user's life with ctxc's Cline hook file, each
// with what it says and what the file then is.
func TestClineInstallUninstallStatus(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".cline", "hooks", ClineFile)
	o := Options{Home: home, Ctxc: "/opt/my tools/ctxc", Args: []string{"--budget", "2000"}}
	other := o
	other.Args, other.Memory = nil, "AGENTS.md"
	another := o
	another.Ctxc = "/usr/bin/ctxc"
	type step struct {
		name    string
		do      func(Options) (Change, error)
		o       Options
		changed bool
		exists  bool
		status  State // Installed, Command, and whether Note is set ("x")
	}
	for _, s := range []step{
		{"status before", nil, o, false, false, State{}},
		{"install", cline{}.Install, o, true, true, State{Installed: true, Command: "'/opt/my tools/ctxc' hook cline --budget 2000"}},
		{"install again", cline{}.Install, o, false, true, State{Installed: true, Command: "'/opt/my tools/ctxc' hook cline --budget 2000"}},
		{"status without arguments", nil, other, false, true, State{Installed: true, Command: "'/opt/my tools/ctxc' hook cline --budget 2000"}},
		{"another ctxc: status says so", nil, another, false, true, State{Installed: true, Command: "'/opt/my tools/ctxc' hook cline --budget 2000", Note: "x"}},
		{"install with other arguments", cline{}.Install, other, true, true, State{Installed: true, Command: "'/opt/my tools/ctxc' hook cline --memory AGENTS.md"}},
		{"uninstall", cline{}.Uninstall, other, true, false, State{}},
		{"uninstall again", cline{}.Uninstall, other, false, false, State{}},
	} {
		if s.do != nil {
			ch, err := s.do(s.o)
			if err != nil || ch.Changed != s.changed || ch.Path != path {
				t.Fatalf("%s: %+v, %v", s.name, ch, err)
			}
		}
		info, err := os.Stat(path)
		if (err == nil) != s.exists {
			t.Fatalf("%s: file exists %v", s.name, err == nil)
		}
		if s.exists && info.Mode().Perm()&0o111 == 0 {
			t.Errorf("%s: not executable: %v", s.name, info.Mode())
		}
		st, err := cline{}.Status(s.o)
		if err != nil || st.Installed != s.status.Installed || st.Command != s.status.Command || (st.Note != "") != (s.status.Note != "") || st.Path != path {
			t.Errorf("%s: status %+v, %v", s.name, st, err)
		}
	}
}

// TestClineScript: the file Cline runs: an interpreter, ctxc's line second, the hook command.
func TestClineScript(t *testing.T) {
	dir := t.TempDir()
	if _, err := (cline{}).Install(Options{Path: dir, Ctxc: "/usr/local/bin/ctxc", Memory: "it's.md"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, ClineFile))
	lines := strings.Split(string(data), "\n")
	if lines[0] != "#!/usr/bin/env bash" || lines[1]+"\n" != clineHeader ||
		!strings.Contains(string(data), "\nexec /usr/local/bin/ctxc hook cline --memory 'it'\\''s.md'\n") {
		t.Errorf("script:\n%s", data)
	}
}

// TestClineLeavesAUsersFile: a file of ctxc's name that ctxc did not write is neither replaced
// nor removed; ctxc's own, made not executable, is made so again.
func TestClineLeavesAUsersFile(t *testing.T) {
	for _, mine := range []string{
		"#!/bin/sh\necho '{}'\n",
		"# Installed by ctxc (ctxc hooks install cline); ctxc hooks uninstall cline removes it.\n", // ctxc's line, first
		"",
	} {
		dir := t.TempDir()
		o := Options{Path: dir, Ctxc: "/bin/ctxc"}
		path := filepath.Join(dir, ClineFile)
		os.WriteFile(path, []byte(mine), 0o755)
		for name, f := range map[string]func(Options) (Change, error){"install": cline{}.Install, "uninstall": cline{}.Uninstall} {
			_, err := f(o)
			var ce *ConflictError
			if !errors.As(err, &ce) {
				t.Errorf("%q: %s: %v, want a ConflictError", mine, name, err)
			}
			if got, _ := os.ReadFile(path); string(got) != mine {
				t.Errorf("%s changed the user's file: %q", name, got)
			}
		}
		if st, err := (cline{}).Status(o); err != nil || st.Installed || st.Note == "" {
			t.Errorf("status: %+v, %v", st, err)
		}
	}
	dir := t.TempDir()
	o := Options{Path: dir, Ctxc: "/bin/ctxc"}
	cline{}.Install(o)
	os.Chmod(filepath.Join(dir, ClineFile), 0o644)
	if st, _ := (cline{}).Status(o); st.Note == "" {
		t.Error("status does not say the file is not executable")
	}
	if ch, err := (cline{}).Install(o); err != nil || !ch.Changed {
		t.Errorf("install over a file not executable: %+v, %v", ch, err)
	}
	if info, _ := os.Stat(filepath.Join(dir, ClineFile)); info.Mode().Perm()&0o100 == 0 {
		t.Errorf("still not executable: %v", info.Mode())
	}
}

func TestClineDryRun(t *testing.T) {
	dir := t.TempDir()
	ch, err := cline{}.Install(Options{Path: dir, Ctxc: "/bin/ctxc", DryRun: true})
	if err != nil || !ch.Changed || !strings.Contains(ch.Preview, clineHeader) {
		t.Fatalf("%+v, %v", ch, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ClineFile)); !os.IsNotExist(err) {
		t.Fatal("dry run wrote the file")
	}
	cline{}.Install(Options{Path: dir, Ctxc: "/bin/ctxc"})
	if ch, err := (cline{}).Uninstall(Options{Path: dir, DryRun: true}); err != nil || !ch.Changed {
		t.Fatalf("uninstall dry run: %+v, %v", ch, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ClineFile)); err != nil {
		t.Fatal("uninstall dry run removed the file")
	}
}
