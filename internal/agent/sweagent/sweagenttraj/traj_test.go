package sweagenttraj

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestIsTrajectory: a *.traj file whose object opens with a member SWE-agent writes.
func TestIsTrajectory(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, data string
		want       bool
	}{
		{"a.traj", "{\n  \"environment\": \"swe_main\",\n  \"trajectory\": []}", true},
		{"b.traj", `{"trajectory":[],"history":[]}`, true},
		{"c.traj", "\xef\xbb\xbf{ \"history\": []}", true},
		{"d.traj", `{"attempts":[]}`, true},
		{"e.traj", `{"id":"x"}`, false},
		{"f.traj", `[]`, false},
		{"g.json", `{"history":[]}`, false},
		{".traj", `{"history":[]}`, false},
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.name)
		os.WriteFile(p, []byte(c.data), 0o644)
		if got := IsTrajectory(p); got != c.want {
			t.Errorf("%s %q: %v, want %v", c.name, c.data, got, c.want)
		}
	}
	if IsTrajectory(dir) {
		t.Error("a folder read as a trajectory")
	}
}

// TestExport: the header (the file's name, how the run ended, its model statistics, its agent's
// history processors from replay_config, object or JSON string), then each history message.
func TestExport(t *testing.T) {
	cases := []struct {
		doc                  string
		lines                int
		stats, procs, sysUsr string
		err                  string
	}{
		{`{"environment":"swe_main","history":[{"role":"system","content":"s"},{"role":"user","content":"u"}],` +
			`"info":{"exit_status":"submitted","model_stats":{"tokens_sent":5,"api_calls":1}}}`, 3, `{"tokens_sent":5,"api_calls":1}`, "", "false", ""},
		{`{"history":[],"replay_config":"{\"agent\":{\"history_processors\":[{\"type\":\"last_n_observations\",\"n\":5}],\"model\":{\"convert_system_to_user\":true}}}"}`,
			1, "", `[{"type":"last_n_observations","n":5}]`, "true", ""},
		{`{"history":[],"replay_config":{"agent":{"history_processors":[]}}}`, 1, "", `[]`, "false", ""},
		{`{"attempts":[{"history":[{"role":"user","content":"1"}]},{"history":[{"role":"user","content":"2"},{"role":"user","content":"3"}]}]}`,
			3, "", "", "false", ""},
		{`{"history":{}}`, 0, "", "", "", `"history" is not an array`},
		{`[1]`, 0, "", "", "", "not a JSON object"},
		{`{"history":[`, 0, "", "", "", "not a JSON document"},
	}
	dir := t.TempDir()
	for i, c := range cases {
		p := filepath.Join(dir, "inst.traj")
		os.WriteFile(p, []byte(c.doc), 0o644)
		var out bytes.Buffer
		err := Export(p, &out)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("case %d: error %v, want %q", i, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		h := gjson.Parse(lines[0])
		if len(lines) != c.lines || h.Get("type").String() != HeaderType || h.Get("sessionId").String() != "inst" ||
			h.Get("messages").Int() != int64(c.lines-1) || h.Get("modelStats").Raw != c.stats ||
			h.Get("historyProcessors").Raw != c.procs || h.Get("systemAsUser").Bool() != (c.sysUsr == "true") {
			t.Errorf("case %d: %q", i, out.String())
		}
	}
}

// TestExportKeepsEachMessage: each history message of a trajectory SWE-agent wrote is one line,
// its JSON unchanged but for its spaces.
func TestExportKeepsEachMessage(t *testing.T) {
	p := "../../../../testdata/sweagent/replay__marshmallow-code__marshmallow-1867__function_calling_replace__install-1/marshmallow-code__marshmallow-1867.traj"
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Export(p, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	hist := gjson.GetBytes(data, "history").Array()
	if len(lines) != len(hist)+1 || len(hist) != 24 {
		t.Fatalf("%d lines for %d messages", len(lines), len(hist))
	}
	for i, m := range hist {
		if gjson.Parse(lines[i+1]).Get("content").String() != m.Get("content").String() {
			t.Errorf("message %d differs", i)
		}
	}
}

// FuzzExport: whatever a trajectory holds, its export is JSON lines or an error.
func FuzzExport(f *testing.F) {
	f.Add([]byte(`{"history":[{"role":"user","content":"x"}],"replay_config":"{}"}`))
	f.Add([]byte(`{"attempts":[{"history":[1,"a",null]}],"info":{"model_stats":[]}}`))
	f.Add([]byte("{\r\n\"history\":\n[{\"a\":\n1}]}\r"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "x.traj")
		os.WriteFile(p, data, 0o644)
		var out bytes.Buffer
		if err := Export(p, &out); err != nil {
			return
		}
		for i, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if !gjson.Valid(l) {
				t.Fatalf("line %d not JSON: %q", i+1, l)
			}
		}
	})
}
