package hooks

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCodexTrustHash(t *testing.T) {
	// The same identity hashed the way Codex does (sorted keys, no spaces, SHA-256), by an
	// independent implementation.
	want := "sha256:c47a2aeacb531a099f6c5250e82eceb691c48a4807ea11240a22f131f68b3bbc"
	if got := trustHash("/opt/ctxc/bin/ctxc hook codex", 0); got != want {
		t.Fatalf("%s, want %s", got, want)
	}
	want = "sha256:c0367f88d25478f9d49a77f4d4636d80d3b0f0a3766f59b2295b50ebc3823cd7"
	if got := trustHash("/opt/ctxc/bin/ctxc hook codex", 10000); got != want {
		t.Fatalf("with a limit: %s, want %s", got, want)
	}
	if trustHash("x", 2500) != trustHash("x", 0) {
		t.Fatal("Codex's default limit is not left out of the identity")
	}
}

func TestCodexContextLimit(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{nil, codexDefaultLimit},
		{[]string{"--budget", "2000"}, codexDefaultLimit},
		{[]string{"--budget", "20000"}, 22000},
	} {
		if got := codexContextLimit(tc.args); got != tc.want {
			t.Errorf("%v: %d, want %d", tc.args, got, tc.want)
		}
	}
}

func TestCodexInstallUninstall(t *testing.T) {
	home := t.TempDir()
	hj, ct := filepath.Join(home, "hooks.json"), filepath.Join(home, "config.toml")
	userHooks := "{\n  \"hooks\": {\n    \"SessionStart\": [\n      {\"matcher\": \"startup\", \"hooks\": [{\"type\": \"command\", \"command\": \"echo hi\"}]}\n    ]\n  }\n}\n"
	userConfig := "model = \"gpt-5\"\n\n[projects.\"/src\"]\ntrust_level = \"trusted\"\n"
	os.WriteFile(hj, []byte(userHooks), 0o644)
	os.WriteFile(ct, []byte(userConfig), 0o600)
	o := Options{Path: home, Ctxc: "/opt/ctxc/bin/ctxc"}

	ch, err := codex{}.Install(o)
	if err != nil || !ch.Changed || ch.Path != hj || !strings.Contains(ch.Note, ct) {
		t.Fatalf("install: %+v, %v", ch, err)
	}
	conf, _ := os.ReadFile(ct)
	wantBlock := trustMarker + "\n[hooks.state.\"" + hj + ":session_start:1:0\"]\n" +
		"trusted_hash = \"sha256:c0367f88d25478f9d49a77f4d4636d80d3b0f0a3766f59b2295b50ebc3823cd7\"\n"
	if string(conf) != userConfig+"\n"+wantBlock {
		t.Fatalf("config.toml:\n%s", conf)
	}
	if info, _ := os.Stat(ct); info.Mode().Perm() != 0o600 {
		t.Errorf("config.toml mode %v", info.Mode().Perm())
	}
	st, err := codex{}.Status(o)
	if err != nil || !st.Installed || st.Note != "" || st.Command != "/opt/ctxc/bin/ctxc hook codex" {
		t.Fatalf("status: %+v, %v", st, err)
	}
	if ch, err := (codex{}).Install(o); err != nil || ch.Changed {
		t.Fatalf("second install: %+v, %v", ch, err)
	}

	// Other arguments: the entry and its trust are updated, still one of each.
	o.Args = []string{"--budget", "900"}
	if ch, err := (codex{}).Install(o); err != nil || !ch.Changed {
		t.Fatalf("install with arguments: %+v, %v", ch, err)
	}
	conf, _ = os.ReadFile(ct)
	if strings.Count(string(conf), trustMarker) != 1 || !strings.Contains(string(conf), trustHash("/opt/ctxc/bin/ctxc hook codex --budget 900", codexDefaultLimit)) {
		t.Fatalf("config.toml after an update:\n%s", conf)
	}
	hooksData, _ := os.ReadFile(hj)
	if strings.Count(string(hooksData), "hook codex") != 1 {
		t.Fatalf("hooks.json after an update:\n%s", hooksData)
	}

	// A trust entry that no longer matches is reported.
	os.WriteFile(ct, []byte(userConfig), 0o600)
	if st, _ := (codex{}).Status(o); !st.Installed || !strings.Contains(st.Note, "not trusted") {
		t.Errorf("status without trust: %+v", st)
	}
	if _, err := (codex{}).Install(o); err != nil {
		t.Fatal(err)
	}

	if ch, err := (codex{}).Uninstall(o); err != nil || !ch.Changed {
		t.Fatalf("uninstall: %+v, %v", ch, err)
	}
	if got, _ := os.ReadFile(hj); string(got) != userHooks {
		t.Errorf("hooks.json not restored:\n%s", got)
	}
	if got, _ := os.ReadFile(ct); string(got) != userConfig {
		t.Errorf("config.toml not restored:\n%s", got)
	}
}

func TestCodexInstallFresh(t *testing.T) {
	home := t.TempDir()
	o := Options{Home: home, Ctxc: "/usr/bin/ctxc"}
	ch, err := codex{}.Install(o)
	if err != nil || !ch.Changed {
		t.Fatalf("%+v, %v", ch, err)
	}
	if ch.Path != filepath.Join(home, ".codex", "hooks.json") {
		t.Errorf("path %s", ch.Path)
	}
	conf, err := os.ReadFile(filepath.Join(home, ".codex", "config.toml"))
	if err != nil || !strings.HasPrefix(string(conf), trustMarker+"\n") {
		t.Fatalf("config.toml %q, %v", conf, err)
	}
	if _, err := (codex{}).Uninstall(o); err != nil {
		t.Fatal(err)
	}
	// Both files ctxc created are removed, without backups.
	for _, name := range []string{"config.toml", "hooks.json"} {
		for _, p := range []string{name, name + BackupSuffix} {
			if _, err := os.Lstat(filepath.Join(home, ".codex", p)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s after uninstall: %v", p, err)
			}
		}
	}
}
