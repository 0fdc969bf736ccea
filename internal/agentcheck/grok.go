package agentcheck

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
)

// Grok is Grok CLI (npm @vibe-kit/grok-cli), an agent that speaks OpenAI Chat Completions to a
// base URL (GROK_BASE_URL). It keeps its conversation in memory only and has no resume: ctxc
// has nothing of it to read, and the judge proves that much.
const Grok = "grok-cli"

// GrokTool is the tool the fake asks Grok CLI to call.
const GrokTool = "view_file"

// NewGrokHome prepares a home for Grok CLI under dir.
func NewGrokHome(dir string) (*AgentHome, error) {
	return newHome(Grok, "grok", dir, GrokTool, map[string]any{"path": "$NOTES"}, func(url string) []string {
		return []string{"GROK_API_KEY=fake-key", "GROK_BASE_URL=" + url + "/v1", "GROK_MODEL=fake-model"}
	})
}

// RunGrok runs Grok CLI headless (-p) on prompt.
func (h *AgentHome) RunGrok(prompt string) error { return h.run("-p", prompt) }

// FilesHolding lists the files under the agent's home and project folder whose bytes hold any
// of texts: where an agent kept what was said.
func (h *AgentHome) FilesHolding(texts ...string) ([]string, error) {
	var found []string
	for _, root := range []string{h.Home, h.Proj} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, t := range texts {
				if bytes.Contains(b, []byte(t)) {
					found = append(found, p)
					break
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return found, nil
}
