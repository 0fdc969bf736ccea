package ledger

import (
	"strings"
	"testing"

	"github.com/ctxc/ctxc/estimate"
	"github.com/ctxc/ctxc/summarize"
)

var fuzzTools = []string{"Edit", "MultiEdit", "Write", "NotebookEdit", "apply_patch", "shell", "exec_command", "edit", "write", "bash", "read", "Read"}

// FuzzBuild: whatever the tool calls, user messages, results and earlier summaries hold, the
// ledger has well-formed facts, and the audit of any summary stays within the target and, when
// nothing was dropped, holds every fact in a form the next compaction reads back.
func FuzzBuild(f *testing.F) {
	f.Add(uint8(0), `{"file_path":"/a/b.go"}`, "Never push to main. see https://x.io/1 v1.2.3", "## Files modified\n- `c.go`", "boom: error", 500)
	f.Add(uint8(4), "*** Begin Patch\n*** Update File: x.rs\n*** End Patch", "ok", "", "", 50)
	f.Add(uint8(5), `{"command":["bash","-lc","cat > f.txt <<'EOF'\n> g\nEOF\nsed -i '' s/a/b/ h.go"]}`, "always `tabs`", "## User rules\n- \"always `tabs`\"\n  x", "", 3000)
	f.Add(uint8(8), `{"path":"~/.pi/x.json"}`, "\"quoted\"\n\n  indented\n- bullet\n## heading", "> q\n> r", "", 10)
	f.Fuzz(func(t *testing.T, tool uint8, args, text, summary, errText string, target int) {
		items := []summarize.Item{
			{Role: "user", Kind: "summary", Text: summary},
			{Role: "user", Kind: "text", Text: text},
			{Role: "assistant", Kind: "tool_call", Name: fuzzTools[int(tool)%len(fuzzTools)], Text: args, Group: 1},
			{Role: "tool", Kind: "tool_result", Text: errText, IsError: true, Group: 1},
		}
		l := Build(items, Options{})
		for _, fact := range l.Facts() {
			if norm(fact.Text) == "" || fact.Text != strings.TrimSpace(fact.Text) {
				t.Fatalf("malformed %s fact %q", fact.Cat, fact.Text)
			}
			if fact.Cat.token() && strings.ContainsAny(fact.Text, "`\n\r") {
				t.Fatalf("%s token with a backquote or line break: %q", fact.Cat, fact.Text)
			}
		}
		target %= 5000
		if target < 0 {
			target = -target
		}
		out, rep := Audit(summary, l, target)
		if target > 0 && estimate.Tokens(out) > target {
			t.Fatalf("%d tokens > target %d", estimate.Tokens(out), target)
		}
		if rep.Facts != l.Len() || rep.Present+rep.Carried+rep.Dropped != rep.Facts {
			t.Fatalf("counts %+v for %d facts", rep.Counts, l.Len())
		}
		if rep.Dropped == 0 {
			got := presentSet(out)
			for _, fact := range l.Facts() {
				if !got[Fact{Cat: fact.Cat, Text: norm(fact.Text)}] {
					t.Fatalf("%s fact %q not read back from:\n%s", fact.Cat, fact.Text, out)
				}
			}
		}
	})
}
