package hooks

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpencodePath: the plugin goes into opencode's global plugin folder, under
// $XDG_CONFIG_HOME when it is an absolute path, else ~/.config; --dir chooses the folder.
func TestOpencodePath(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"home", Options{Home: "/home/me"}, "/home/me/.config/opencode/plugin/" + OpencodeFile},
		{"XDG_CONFIG_HOME", Options{Home: "/home/me", ConfigHome: "/cfg"}, "/cfg/opencode/plugin/" + OpencodeFile},
		{"a relative XDG_CONFIG_HOME is ignored", Options{Home: "/home/me", ConfigHome: "cfg"}, "/home/me/.config/opencode/plugin/" + OpencodeFile},
		{"--dir", Options{Home: "/home/me", ConfigHome: "/cfg", Path: "/proj/.opencode/plugins"}, "/proj/.opencode/plugins/" + OpencodeFile},
	} {
		if got := opencodeAgent.path(tc.o); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	if got := kiloAgent.path(Options{Home: "/home/me"}); got != "/home/me/.config/kilo/plugin/"+OpencodeFile {
		t.Errorf("kilo: %s", got)
	}
	if text := string(kiloAgent.plugin(Options{Ctxc: "/bin/ctxc"})); !strings.Contains(text, `const AGENT: string = "kilo";`) ||
		!strings.Contains(text, `const DB_ENV: string = "KILO_DB";`) || !strings.HasPrefix(text, "// Installed by ctxc (ctxc hooks install kilo); ctxc hooks uninstall kilo removes it.\n") {
		t.Errorf("kilo's plugin:\n%.800s", text)
	}
}

func TestOpencodeInstallUninstallStatus(t *testing.T) {
	home := t.TempDir()
	o := Options{Home: home, Ctxc: "/opt/my tools/ctxc", Args: []string{"--budget", "2000"}, Memory: "AGENTS.md"}
	path := filepath.Join(home, ".config", "opencode", "plugin", OpencodeFile)

	if st, err := opencodeAgent.Status(o); err != nil || st.Installed || st.Path != path {
		t.Fatalf("status before: %+v, %v", st, err)
	}
	ch, err := opencodeAgent.Install(o)
	if err != nil || !ch.Changed || ch.Path != path {
		t.Fatalf("install: %+v, %v", ch, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if !strings.HasPrefix(text, opencodeAgent.header()) {
		t.Fatalf("first line: %q", strings.SplitN(text, "\n", 2)[0])
	}
	for _, want := range []string{`const CTXC: string = "/opt/my tools/ctxc";`, `const CTXC_ARGS: string[] = ["--budget","2000","--memory","AGENTS.md"];`,
		`const AGENT: string = "opencode";`, `const DB_ENV: string = "OPENCODE_DB";`, `"experimental.session.compacting"`, `"experimental.compaction.autocontinue"`, `"session.compacted"`} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
	if strings.Contains(text, "__CTXC") {
		t.Errorf("a placeholder is left:\n%s", text)
	}
	if ch, err := opencodeAgent.Install(o); err != nil || ch.Changed {
		t.Fatalf("second install: %+v, %v", ch, err)
	}
	st, err := opencodeAgent.Status(o)
	if err != nil || !st.Installed || st.Command != "'/opt/my tools/ctxc' hook opencode --budget 2000 --memory AGENTS.md" || st.Note != "" {
		t.Fatalf("status: %+v, %v", st, err)
	}
	o2 := o
	o2.Args, o2.Memory = nil, ""
	if st, _ := opencodeAgent.Status(o2); st.Note == "" {
		t.Error("status does not say the installed plugin has other arguments")
	}
	if ch, err := opencodeAgent.Install(o2); err != nil || !ch.Changed {
		t.Fatalf("install with other arguments: %+v, %v", ch, err)
	}
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), "const CTXC_ARGS: string[] = [];") {
		t.Errorf("arguments not updated:\n%s", data)
	}
	if ch, err := opencodeAgent.Uninstall(o); err != nil || !ch.Changed {
		t.Fatalf("uninstall: %+v, %v", ch, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("file still there: %v", err)
	}
	if ch, err := opencodeAgent.Uninstall(o); err != nil || ch.Changed {
		t.Fatalf("second uninstall: %+v, %v", ch, err)
	}
}

// TestOwnedFilesLeaveAUsersFile: a file of ctxc's name that ctxc did not write (pi's extension,
// opencode's plugin) is neither replaced nor deleted, and status says so; a dry run writes
// nothing.
func TestOwnedFilesLeaveAUsersFile(t *testing.T) {
	for _, a := range []Agent{pi{}, opencodeAgent, kiloAgent} {
		dir := t.TempDir()
		o := Options{Path: dir, Ctxc: "/bin/ctxc"}
		ch, err := a.Install(Options{Path: dir, Ctxc: "/bin/ctxc", DryRun: true})
		if err != nil || !ch.Changed || ch.Preview == "" {
			t.Fatalf("%s: dry run: %+v, %v", a.Name(), ch, err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Fatalf("%s: the dry run wrote %s", a.Name(), entries[0].Name())
		}
		path := filepath.Join(dir, "ctxc-compact.ts")
		mine := "// my own compaction plugin\nexport default async function () { return {} }\n"
		os.WriteFile(path, []byte(mine), 0o644)
		for name, f := range map[string]func(Options) (Change, error){"install": a.Install, "uninstall": a.Uninstall} {
			_, err := f(o)
			var ce *ConflictError
			if !errors.As(err, &ce) {
				t.Errorf("%s %s: %v, want a ConflictError", a.Name(), name, err)
			}
			if got, _ := os.ReadFile(path); string(got) != mine {
				t.Errorf("%s %s changed the user's file: %q", a.Name(), name, got)
			}
		}
		if st, err := a.Status(o); err != nil || st.Installed || st.Note == "" {
			t.Errorf("%s status: %+v, %v", a.Name(), st, err)
		}
	}
}
