package agentcheck

import (
	"fmt"
	"os"
	"path/filepath"
)

// NewDroidHome is a home in which droid runs with a custom model (settings.json customModels,
// provider generic-chat-completion-api) on the fake model, and with Factory's API
// (FACTORY_API_BASE_URL) on it too: `droid exec -s ID` first asks that API for the session and
// reads the local file on a 404. No Factory login is needed.
func NewDroidHome(bin, dir string) (*ChatHome, error) {
	h, err := newChatHome(bin, dir, DroidRead)
	if err != nil {
		return nil, err
	}
	settings := fmt.Sprintf(`{"customModels":[{"model":"fake-model","displayName":"Fake","baseUrl":%q,"apiKey":"sk-fake","provider":"generic-chat-completion-api","maxOutputTokens":1000}]}`, h.Fake.URL+"/v1")
	if err := os.MkdirAll(filepath.Join(h.Home, ".factory"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(h.Home, ".factory", "settings.json"), []byte(settings), 0o644); err != nil {
		return nil, err
	}
	h.env = append(h.env, "FACTORY_API_BASE_URL="+h.Fake.URL)
	return h, nil
}

// DroidPrompt runs one `droid exec` turn; resume is a session id or "".
func (h *ChatHome) DroidPrompt(resume, prompt string) error {
	args := []string{"exec", "-m", "custom:fake-model"}
	if resume != "" {
		args = append(args, "-s", resume)
	}
	return h.Run(append(args, prompt)...)
}

// DroidSessions lists the session files droid wrote: sessions/<cwd>/<id>.jsonl.
func (h *ChatHome) DroidSessions() ([]string, error) {
	return filepath.Glob(filepath.Join(h.Home, ".factory", "sessions", "*", "*.jsonl"))
}
