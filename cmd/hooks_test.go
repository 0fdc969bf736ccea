package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/iostreams"
)

func hooksFactory(t *testing.T, env map[string]string) (*cmdutil.Factory, *strings.Builder, *strings.Builder) {
	t.Helper()
	ios, _, _, _ := iostreams.Test()
	f := &cmdutil.Factory{IO: ios, Getenv: func(k string) string { return env[k] }, Now: time.Now,
		Executable: func() (string, error) { return "/opt/ctxc/ctxc", nil }}
	o, e := &strings.Builder{}, &strings.Builder{}
	ios.Out, ios.ErrOut = o, e
	return f, o, e
}

func TestHooksCommandJSON(t *testing.T) {
	home := t.TempDir()
	codexHome := filepath.Join(home, "elsewhere")
	env := map[string]string{"HOME": home, "CODEX_HOME": codexHome, "XDG_CONFIG_HOME": filepath.Join(home, "cfg")}
	for _, tc := range []struct {
		args []string
		code int
		want map[string]any
	}{
		{[]string{"--json", "hooks", "install", "claude-code", "--budget", "500"}, 0,
			map[string]any{"agent": "claude-code", "path": filepath.Join(home, ".claude", "settings.json"), "changed": true}},
		{[]string{"--json", "hooks", "install", "codex"}, 0,
			map[string]any{"agent": "codex", "path": filepath.Join(codexHome, "hooks.json"), "changed": true}},
		{[]string{"--json", "hooks", "install", "pi", "--dir", filepath.Join(home, "ext")}, 0,
			map[string]any{"agent": "pi", "path": filepath.Join(home, "ext", "ctxc-compact.ts"), "changed": true}},
		{[]string{"--json", "hooks", "uninstall", "pi", "--dir", filepath.Join(home, "ext")}, 0,
			map[string]any{"agent": "pi", "changed": true}},
		{[]string{"--json", "hooks", "install", "opencode", "--budget", "500"}, 0,
			map[string]any{"agent": "opencode", "path": filepath.Join(home, "cfg", "opencode", "plugin", "ctxc-compact.ts"), "changed": true}},
		{[]string{"hooks", "install", "opencode", "--settings", "x.json"}, cmdutil.ExitUsage, nil},
		{[]string{"--json", "hooks", "install", "cline", "--budget", "800"}, 0,
			map[string]any{"agent": "cline", "path": filepath.Join(home, ".cline", "hooks", "PostToolUse.bash"), "changed": true}},
		{[]string{"hooks", "install", "cline", "--settings", "x.json"}, cmdutil.ExitUsage, nil},
		{[]string{"hooks", "install", "codex", "--settings", "x.json"}, cmdutil.ExitUsage, nil},
		{[]string{"hooks", "install", "claude-code", "--dir", "x"}, cmdutil.ExitUsage, nil},
		{[]string{"hooks", "install"}, cmdutil.ExitUsage, nil},
	} {
		f, out, errOut := hooksFactory(t, env)
		code := Run(context.Background(), f, tc.args)
		if code != tc.code {
			t.Fatalf("%v: exit %d, want %d; %s", tc.args, code, tc.code, errOut)
		}
		if tc.want == nil {
			continue
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
			t.Fatalf("%v: %q: %v", tc.args, out, err)
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%v: %s = %v, want %v", tc.args, k, got[k], v)
			}
		}
	}
	data, _ := os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
	if !strings.Contains(string(data), `"/opt/ctxc/ctxc hook claude-code --budget 500"`) {
		t.Errorf("settings:\n%s", data)
	}

	f, out, _ := hooksFactory(t, env)
	if code := Run(context.Background(), f, []string{"--json", "hooks", "status"}); code != 0 {
		t.Fatalf("status: exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 6 || !strings.Contains(lines[0], `"installed":true`) || !strings.Contains(lines[1], `"installed":true`) || !strings.Contains(lines[2], `"installed":false`) ||
		!strings.Contains(lines[3], `"command":"/opt/ctxc/ctxc hook opencode --budget 500"`) ||
		!strings.Contains(lines[5], `"installed":true`) || !strings.Contains(lines[5], `"command":"/opt/ctxc/ctxc hook cline --budget 800"`) {
		t.Errorf("status:\n%s", out)
	}
}
