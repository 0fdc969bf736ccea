package hooks

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPiInstallUninstallStatus(t *testing.T) {
	home := t.TempDir()
	o := Options{Home: home, Ctxc: "/opt/my tools/ctxc", Args: []string{"--budget", "2000"}}
	path := filepath.Join(home, ".pi", "agent", "extensions", PiFile)

	if st, err := (pi{}).Status(o); err != nil || st.Installed || st.Path != path {
		t.Fatalf("status before: %+v, %v", st, err)
	}
	ch, err := pi{}.Install(o)
	if err != nil || !ch.Changed || ch.Path != path {
		t.Fatalf("install: %+v, %v", ch, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if !strings.HasPrefix(text, piHeader) {
		t.Fatalf("first line: %q", strings.SplitN(text, "\n", 2)[0])
	}
	for _, want := range []string{`const CTXC: string = "/opt/my tools/ctxc";`, `const CTXC_ARGS: string[] = ["--budget","2000"];`, `const CTXC_MEMORY: string = "";`, "session_before_compact"} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
	if strings.Contains(text, "__CTXC") {
		t.Errorf("a placeholder is left:\n%s", text)
	}
	if ch, err := (pi{}).Install(o); err != nil || ch.Changed {
		t.Fatalf("second install: %+v, %v", ch, err)
	}
	st, err := pi{}.Status(o)
	if err != nil || !st.Installed || st.Command != "'/opt/my tools/ctxc' --budget 2000" || st.Note != "" {
		t.Fatalf("status: %+v, %v", st, err)
	}
	o2 := o
	o2.Args = nil
	if st, _ := (pi{}).Status(o2); st.Note == "" {
		t.Error("status does not say the installed extension has other arguments")
	}
	if ch, err := (pi{}).Install(o2); err != nil || !ch.Changed {
		t.Fatalf("install with other arguments: %+v, %v", ch, err)
	}
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), "const CTXC_ARGS: string[] = [];") {
		t.Errorf("arguments not updated:\n%s", data)
	}
	if ch, err := (pi{}).Uninstall(o); err != nil || !ch.Changed {
		t.Fatalf("uninstall: %+v, %v", ch, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("file still there: %v", err)
	}
	if ch, err := (pi{}).Uninstall(o); err != nil || ch.Changed {
		t.Fatalf("second uninstall: %+v, %v", ch, err)
	}
}

func TestPiLeavesAUsersFile(t *testing.T) {
	dir := t.TempDir()
	o := Options{Path: dir, Ctxc: "/bin/ctxc"}
	path := filepath.Join(dir, PiFile)
	mine := "// my own compaction extension\nexport default function (pi) {}\n"
	os.WriteFile(path, []byte(mine), 0o644)
	for name, f := range map[string]func(Options) (Change, error){"install": pi{}.Install, "uninstall": pi{}.Uninstall} {
		_, err := f(o)
		var ce *ConflictError
		if !errors.As(err, &ce) {
			t.Errorf("%s: %v, want a ConflictError", name, err)
		}
		if got, _ := os.ReadFile(path); string(got) != mine {
			t.Errorf("%s changed the user's file: %q", name, got)
		}
	}
	if st, err := (pi{}).Status(o); err != nil || st.Installed || st.Note == "" {
		t.Errorf("status: %+v, %v", st, err)
	}
}

func TestPiDryRun(t *testing.T) {
	dir := t.TempDir()
	ch, err := pi{}.Install(Options{Path: dir, Ctxc: "/bin/ctxc", DryRun: true})
	if err != nil || !ch.Changed || !strings.HasPrefix(ch.Preview, piHeader) {
		t.Fatalf("%+v, %v", ch, err)
	}
	if _, err := os.Stat(filepath.Join(dir, PiFile)); !os.IsNotExist(err) {
		t.Fatal("dry run wrote the file")
	}
}
