package ledger_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctxc/ctxc/internal/ledger"
	"github.com/ctxc/ctxc/internal/transcript"
)

const samples = "../../../shared/samples"

// editedPaths reads the paths of the edit and write tool calls straight from the JSONL lines,
// independently of the transcript readers: Claude Code tool_use input.file_path/notebook_path,
// pi toolCall arguments.path.
func editedPaths(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var line struct {
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		var blocks []struct {
			Type      string         `json:"type"`
			Name      string         `json:"name"`
			Input     map[string]any `json:"input"`
			Arguments map[string]any `json:"arguments"`
		}
		if json.Unmarshal(line.Message.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			var p any
			switch {
			case b.Type == "tool_use" && slices.Contains([]string{"Edit", "MultiEdit", "Write"}, b.Name):
				p = b.Input["file_path"]
			case b.Type == "tool_use" && b.Name == "NotebookEdit":
				p = b.Input["notebook_path"]
			case b.Type == "toolCall" && (b.Name == "edit" || b.Name == "write"):
				p = b.Arguments["path"]
			}
			if s, ok := p.(string); ok && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// TestSamplesModified: on the real sessions, the ledger of the whole context lists every file
// an edit or write tool call changed, as written.
func TestSamplesModified(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(samples, "*", "*.jsonl"))
	if len(files) == 0 {
		t.Skip("no samples in " + samples)
	}
	total := 0
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			_, msgs, err := transcript.LoadFile(file, transcript.Options{})
			if err != nil {
				t.Skip(err)
			}
			if len(msgs) == 0 {
				t.Skip("no effective context (a side-chain file)")
			}
			l := ledger.Build(transcript.Flatten(msgs), ledger.Options{})
			want := editedPaths(t, file)
			total += len(want)
			for _, p := range want {
				if !slices.Contains(l.ByCat[ledger.Modified], p) {
					t.Errorf("%s not in modified %q", p, l.ByCat[ledger.Modified])
				}
			}
		})
	}
	if total == 0 {
		t.Error("no edit or write tool call found in any sample")
	}
}
