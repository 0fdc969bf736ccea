package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const testCtxc = "/opt/ctxc/bin/ctxc"

const ctxcGroupJSON = `{"matcher":"compact","hooks":[{"type":"command","command":"/opt/ctxc/bin/ctxc hook claude-code","timeout":30}]}`

// settingsShapes are settings files as users have them, with what install must make of them.
var settingsShapes = []struct {
	name, in, want string
	missing        bool
	// uninstalled is what uninstall leaves when it is not the original: a "hooks" or
	// "SessionStart" that was already empty is removed with ctxc's entry.
	uninstalled string
}{
	{name: "no file", missing: true, want: `{"hooks":{"SessionStart":[` + ctxcGroupJSON + `]}}`},
	{name: "empty file", in: "", want: `{"hooks":{"SessionStart":[` + ctxcGroupJSON + `]}}`},
	{name: "empty object", in: "{}\n", want: `{"hooks":{"SessionStart":[` + ctxcGroupJSON + `]}}`},
	{name: "unrelated keys", in: "{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\"Bash(ls:*)\"]\n  },\n  \"env\": {\"A\": \"1\"}\n}\n",
		want: `{"model":"opus","permissions":{"allow":["Bash(ls:*)"]},"env":{"A":"1"},"hooks":{"SessionStart":[` + ctxcGroupJSON + `]}}`},
	{name: "hooks with other events", in: "{\n  \"hooks\": {\n    \"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"check\"}]}]\n  }\n}\n",
		want: `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"check"}]}],"SessionStart":[` + ctxcGroupJSON + `]}}`},
	{name: "SessionStart with other groups", in: "{\"hooks\": {\"SessionStart\": [{\"matcher\": \"startup\", \"hooks\": [{\"type\": \"command\", \"command\": \"hello\"}]}]}}",
		want: `{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"hello"}]},` + ctxcGroupJSON + `]}}`},
	{name: "a user's compact group", in: "{\n\t\"hooks\": {\n\t\t\"SessionStart\": [\n\t\t\t{\"matcher\": \"compact\", \"hooks\": [{\"type\": \"command\", \"command\": \"mine\"}]}\n\t\t]\n\t},\n\t\"model\": \"x\"\n}\n",
		want: `{"hooks":{"SessionStart":[{"matcher":"compact","hooks":[{"type":"command","command":"mine"}]},` + ctxcGroupJSON + `]},"model":"x"}`},
	{name: "empty hooks object", in: "{\"hooks\": {}, \"n\": 1.50}", want: `{"hooks":{"SessionStart":[` + ctxcGroupJSON + `]},"n":1.50}`,
		uninstalled: `{"n": 1.50}`},
	{name: "escapes and unicode kept", in: "{\"a\": \"\\u00e9<\\/b>\", \"hooks\": {\"Stop\": []}}",
		want: `{"a":"\u00e9<\/b>","hooks":{"Stop":[],"SessionStart":[` + ctxcGroupJSON + `]}}`},
}

func writeSettings(t *testing.T, in string, missing bool) (string, Options) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "settings.json")
	if !missing {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(in), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return path, Options{Home: dir, Ctxc: testCtxc}
}

// sameJSON compares documents as parsed values, with numbers as written.
func sameJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	dg := json.NewDecoder(bytes.NewReader(got))
	dg.UseNumber()
	dw := json.NewDecoder(strings.NewReader(want))
	dw.UseNumber()
	if err := dg.Decode(&g); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, got)
	}
	if err := dw.Decode(&w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestClaudeInstallShapes(t *testing.T) {
	for _, tc := range settingsShapes {
		t.Run(tc.name, func(t *testing.T) {
			path, o := writeSettings(t, tc.in, tc.missing)
			ch, err := claudeCode{}.Install(o)
			if err != nil {
				t.Fatal(err)
			}
			if !ch.Changed || ch.Path != path {
				t.Fatalf("change %+v", ch)
			}
			got, _ := os.ReadFile(path)
			sameJSON(t, got, tc.want)
			if tc.missing {
				if ch.Backup != "" {
					t.Errorf("backup %q of a file that did not exist", ch.Backup)
				}
			} else if bak, err := os.ReadFile(path + BackupSuffix); err != nil || string(bak) != tc.in {
				t.Errorf("backup %q, %v; want the original %q", bak, err, tc.in)
			}
			if !tc.missing {
				if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
					t.Errorf("mode %v, want the original's 0600", info.Mode().Perm())
				}
			}

			// A second install changes nothing.
			ch, err = claudeCode{}.Install(o)
			if err != nil || ch.Changed {
				t.Fatalf("second install: %+v, %v", ch, err)
			}
			again, _ := os.ReadFile(path)
			if !bytes.Equal(again, got) {
				t.Fatalf("second install changed the file:\n%s", again)
			}

			st, err := claudeCode{}.Status(o)
			if err != nil || !st.Installed || st.Command != testCtxc+" hook claude-code" {
				t.Fatalf("status %+v, %v", st, err)
			}

			// Uninstall gives back the original meaning; the bytes too when ctxc appended to
			// a container that was not empty.
			ch, err = claudeCode{}.Uninstall(o)
			if err != nil || !ch.Changed {
				t.Fatalf("uninstall %+v, %v", ch, err)
			}
			after, err := os.ReadFile(path)
			if tc.missing {
				// The file ctxc created is removed, and no backup is left of it.
				if !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("the file ctxc created is still there after uninstall: %q, %v", after, err)
				}
				if _, err := os.Lstat(path + BackupSuffix); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("a backup is left of the file ctxc created: %v", err)
				}
				return
			}
			orig := tc.in
			if strings.TrimSpace(orig) == "" {
				// The user's blank file is blank again, byte for byte.
				if string(after) != tc.in {
					t.Errorf("uninstall left %q, want the original %q", after, tc.in)
				}
				return
			}
			if tc.uninstalled != "" {
				orig = tc.uninstalled
			}
			sameJSON(t, after, orig)
			if strings.Contains(tc.in, "SessionStart") || strings.Contains(tc.in, "PreToolUse") || strings.Contains(tc.in, "model") {
				if string(after) != tc.in {
					t.Errorf("uninstall did not restore the bytes:\n%s\nwant\n%s", after, tc.in)
				}
			}
			if st, _ := (claudeCode{}).Status(o); st.Installed {
				t.Errorf("still installed after uninstall")
			}
		})
	}
}

func TestClaudeInstallKeepsLayout(t *testing.T) {
	in := "{\n    \"hooks\": {\n        \"SessionStart\": [\n            {\"matcher\": \"startup\", \"hooks\": []}\n        ]\n    }\n}\n"
	path, o := writeSettings(t, in, false)
	if _, err := (claudeCode{}).Install(o); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := "{\n    \"hooks\": {\n        \"SessionStart\": [\n            {\"matcher\": \"startup\", \"hooks\": []},\n" +
		"            {\n                \"matcher\": \"compact\",\n                \"hooks\": [\n                    {\n" +
		"                        \"type\": \"command\",\n                        \"command\": \"/opt/ctxc/bin/ctxc hook claude-code\",\n" +
		"                        \"timeout\": 30\n                    }\n                ]\n            }\n        ]\n    }\n}\n"
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestClaudeInstallUpdatesOwnEntry(t *testing.T) {
	in := `{"hooks":{"SessionStart":[{"matcher":"compact","hooks":[{"type":"command","command":"/old/ctxc hook claude-code","timeout":30}]}]}}`
	path, o := writeSettings(t, in, false)
	o.Args = []string{"--budget", "2000"}
	o.Ctxc = "/new place/ctxc"
	ch, err := claudeCode{}.Install(o)
	if err != nil || !ch.Changed {
		t.Fatalf("%+v, %v", ch, err)
	}
	got, _ := os.ReadFile(path)
	want := `{"hooks":{"SessionStart":[{"matcher":"compact","hooks":[{"type":"command","command":"'/new place/ctxc' hook claude-code --budget 2000","timeout":30}]}]}}`
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestClaudeInstallWithMemory(t *testing.T) {
	path, o := writeSettings(t, `{}`, false)
	o.Ctxc, o.Memory = "/bin/ctxc", "docs/CLAUDE notes.md"
	if _, err := (claudeCode{}).Install(o); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !strings.Contains(string(got), `"command": "/bin/ctxc hook claude-code --memory 'docs/CLAUDE notes.md'"`) {
		t.Fatalf("settings:\n%s", got)
	}
	// Installing again without the memory file updates ctxc's own entry in place.
	o.Memory = ""
	if ch, err := (claudeCode{}).Install(o); err != nil || !ch.Changed {
		t.Fatalf("%+v, %v", ch, err)
	}
	got, _ = os.ReadFile(path)
	if strings.Contains(string(got), "--memory") || strings.Count(string(got), "hook claude-code") != 1 {
		t.Fatalf("settings:\n%s", got)
	}
}

func TestClaudeUninstallLeavesUsersHooks(t *testing.T) {
	in := `{"hooks":{"SessionStart":[{"matcher":"compact","hooks":[{"type":"command","command":"mine"},{"type":"command","command":"ctxc hook claude-code"}]},{"matcher":"resume","hooks":[]}]}}`
	path, o := writeSettings(t, in, false)
	if _, err := (claudeCode{}).Uninstall(o); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := `{"hooks":{"SessionStart":[{"matcher":"compact","hooks":[{"type":"command","command":"mine"}]},{"matcher":"resume","hooks":[]}]}}`
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestClaudeRefusesFilesItCannotEdit(t *testing.T) {
	for _, in := range []string{"[1, 2]", "{\"hooks\": ", "not json", `"text"`, `{"hooks": []}`, `{"hooks": {"SessionStart": {}}}`} {
		path, o := writeSettings(t, in, false)
		_, err := claudeCode{}.Install(o)
		var fe *FileError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), path) {
			t.Errorf("%q: error %v, want a FileError naming the file", in, err)
		}
		if got, _ := os.ReadFile(path); string(got) != in {
			t.Errorf("%q: the file changed to %q", in, got)
		}
		if _, err := os.Stat(path + BackupSuffix); err == nil {
			t.Errorf("%q: a backup was written", in)
		}
	}
}

func TestClaudeDryRunWritesNothing(t *testing.T) {
	path, o := writeSettings(t, "{}", false)
	o.DryRun = true
	ch, err := claudeCode{}.Install(o)
	if err != nil || !ch.Changed || !strings.Contains(ch.Preview, "hook claude-code") {
		t.Fatalf("%+v, %v", ch, err)
	}
	if got, _ := os.ReadFile(path); string(got) != "{}" {
		t.Fatalf("dry run wrote %q", got)
	}
}

func TestClaudeInstallThroughSymlink(t *testing.T) {
	path, o := writeSettings(t, "{}", false)
	real := filepath.Join(filepath.Dir(path), "real.json")
	os.Rename(path, real)
	os.Symlink(real, path)
	if _, err := (claudeCode{}).Install(o); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(path); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symbolic link was replaced by a file")
	}
	if got, _ := os.ReadFile(real); !bytes.Contains(got, []byte("hook claude-code")) {
		t.Fatalf("target not written: %s", got)
	}
}

func TestIsCtxcCommand(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want bool
	}{
		{"ctxc hook claude-code", true},
		{"/usr/local/bin/ctxc hook claude-code --budget 2000", true},
		{"'/my tools/ctxc' hook claude-code", true},
		{`"/my tools/ctxc" hook claude-code`, true},
		{"ctxc hook codex", false},
		{"ctxc compact", false},
		{"/bin/notctxc hook claude-code", false},
		{"echo ctxc hook claude-code", false},
		{testCtxc + "x hook claude-code", false},
	} {
		if got := isCtxcCommand(tc.cmd, "claude-code", ""); got != tc.want {
			t.Errorf("%q: %v", tc.cmd, got)
		}
	}
	if !isCtxcCommand("/tmp/cmd.test hook claude-code", "claude-code", "/tmp/cmd.test") {
		t.Error("the running executable under another name is not recognized")
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/ctxc":   "/usr/bin/ctxc",
		"/a b/ctxc":       "'/a b/ctxc'",
		"/it's/ctxc":      `'/it'\''s/ctxc'`,
		"C:/x-y_z.1/ctxc": "C:/x-y_z.1/ctxc",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
		if w, _ := firstWord(shellQuote(in) + " hook"); w != in {
			t.Errorf("%q: read back as %q", in, w)
		}
	}
}

func TestFor(t *testing.T) {
	for _, n := range []string{"claude-code", "codex", "pi"} {
		if a, err := For(n); err != nil || a.Name() != n {
			t.Errorf("%s: %v", n, err)
		}
	}
	_, err := For("gemini")
	var ue *UnknownAgentError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "claude-code, codex, pi") {
		t.Errorf("%v", err)
	}
}
