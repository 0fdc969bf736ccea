package cmd

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPOverStdio runs `ctxc mcp` as a process (the test binary, named ctxc) and talks to it
// with the SDK's client over its standard input and output.
func TestMCPOverStdio(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(t.TempDir(), "ctxc")
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	fixture, _ := filepath.Abs("../testdata/fixtures/pi-v1-two-compactions.jsonl")
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	ctx := context.Background()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, "mcp")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 4 { // grep, expand, search, stats
		t.Fatalf("tools: %+v %v", tools, err)
	}
	// The reference: ctxc grep --json on the same file.
	code, want, _ := runCLI(t, dir, "grep", "--json", "-F", "the", fixture)
	if code != 0 || want == "" {
		t.Fatalf("ctxc grep: exit %d", code)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "grep", Arguments: map[string]any{"pattern": "the", "fixed": true, "paths": []string{fixture}, "max_hits": 1000}})
	if err != nil || res.IsError {
		t.Fatalf("grep: %v %+v", err, res)
	}
	hits, _ := res.StructuredContent.(map[string]any)["hits"].([]any)
	if n := strings.Count(want, "\n"); len(hits) != n {
		t.Errorf("mcp grep: %d hits, ctxc grep --json: %d", len(hits), n)
	}
	for _, h := range hits {
		line := h.(map[string]any)["line"].(float64)
		if !strings.Contains(want, `"line":`+strconvFloat(line)+`,`) {
			t.Errorf("hit at line %v not in ctxc grep's", line)
		}
	}
	// pi's own compactions: what the last one replaced is read back from the history.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "expand", Arguments: map[string]any{"path": fixture}})
	if err != nil || res.IsError {
		t.Errorf("expand of pi's own compaction: %v %+v", err, res)
	} else if out, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(out), `"marker_line":14`) || !strings.Contains(string(out), "no digest") {
		t.Errorf("expand of pi's own compaction: %s", out)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "expand", Arguments: map[string]any{"path": filepath.Join(dir, "none.jsonl")}})
	if err != nil || !res.IsError {
		t.Errorf("expand of a missing file: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "grep", Arguments: map[string]any{"pattern": "a(", "paths": []string{fixture}}})
	if err != nil || !res.IsError {
		t.Errorf("bad pattern: %v %+v", err, res)
	}
	// The server is still there.
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Errorf("after tool errors: %v", err)
	}
}

func strconvFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
