package miniswetraj

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestIsTrajectory: a *.traj.json file whose object opens with a member mini-swe-agent writes.
func TestIsTrajectory(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, data string
		want       bool
	}{
		{"a.traj.json", "{\n  \"info\": {\n    \"model_stats\": {}}, \"messages\": []}", true},
		{"b.traj.json", `{"messages":[]}`, true},
		{"c.traj.json", "\xef\xbb\xbf{ \"trajectory_format\": \"mini-swe-agent-1\"}", true},
		{"d.traj.json", `[{"role":"system","content":"s"}]`, false},
		{"e.traj.json", `{"history":[]}`, false},
		{"f.traj", `{"info":{}}`, false},
		{".traj.json", `{"info":{}}`, false},
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.name)
		os.WriteFile(p, []byte(c.data), 0o644)
		if got := IsTrajectory(p); got != c.want {
			t.Errorf("%s %q: %v, want %v", c.name, c.data, got, c.want)
		}
	}
}

// TestExport: the header (the instance, else the file's name; how the run ended; its model
// statistics, version and format), then each message.
func TestExport(t *testing.T) {
	cases := []struct {
		name, doc, id, err string
		lines              int
	}{
		{"run.traj.json", `{"info":{"exit_status":"Submitted","mini_version":"2.2.7","model_stats":{"api_calls":1}},` +
			`"messages":[{"role":"system","content":"s"},{"role":"exit","content":"","extra":{}}],"trajectory_format":"mini-swe-agent-1.1","instance_id":"x__y-1"}`,
			"x__y-1", "", 3},
		{"last_mini_run.traj.json", `{"info":{},"messages":[]}`, "last_mini_run", "", 1},
		{"a.traj.json", `{"messages":{}}`, "", `"messages" is not an array`, 0},
		{"a.traj.json", `[]`, "", "not a JSON object", 0},
		{"a.traj.json", `{"messages":[`, "", "not a JSON document", 0},
	}
	dir := t.TempDir()
	for _, c := range cases {
		p := filepath.Join(dir, c.name)
		os.WriteFile(p, []byte(c.doc), 0o644)
		var out bytes.Buffer
		err := Export(p, &out)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.doc, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.doc, err)
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		h := gjson.Parse(lines[0])
		if len(lines) != c.lines || h.Get("type").String() != HeaderType || h.Get("sessionId").String() != c.id ||
			h.Get("messages").Int() != int64(c.lines-1) {
			t.Errorf("%s: %q", c.doc, out.String())
		}
	}
	p := filepath.Join(dir, cases[0].name)
	os.WriteFile(p, []byte(cases[0].doc), 0o644)
	var out bytes.Buffer
	Export(p, &out)
	h := gjson.Parse(strings.SplitN(out.String(), "\n", 2)[0])
	if h.Get("exitStatus").String() != "Submitted" || h.Get("miniVersion").String() != "2.2.7" ||
		h.Get("modelStats").Raw != `{"api_calls":1}` || h.Get("trajectoryFormat").String() != "mini-swe-agent-1.1" {
		t.Errorf("header %s", h.Raw)
	}
}

// FuzzExport: whatever a trajectory holds, its export is JSON lines or an error.
func FuzzExport(f *testing.F) {
	f.Add([]byte(`{"info":{"model_stats":[]},"messages":[{"role":"user","content":"x"},1,null]}`))
	f.Add([]byte("{\r\n\"messages\":\n[{\"a\":\n1}]}\r"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "x.traj.json")
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
