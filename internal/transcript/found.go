package transcript

import (
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/clinesess"
	"github.com/ctxc/ctxc/internal/clinetask"
	"github.com/ctxc/ctxc/internal/nanocodersess"
	"github.com/ctxc/ctxc/internal/openhandsconv"
	"github.com/ctxc/ctxc/internal/sessionstore"
)

// Found says whether a regular file met in a directory walk (path, its base name) is read as
// sessions: a *.jsonl file, with archived its archive *.jsonl.zst, an OpenClaw store
// (StoreSessions), an Aider chat history, an OpenHands conversation's base_state.json (one
// with its events folder beside it), or a Continue CLI session (~/.continue/sessions/<id>.json:
// continueSessionName), a Cline session's <id>.messages.json, a task of Cline's extension or
// its descendants (tasks/<id>/api_conversation_history.json), a Nanocoder session (<id>.json
// beside its sessions.json), or Goose's store (sessions.db), unless an agent keeps it beside its sessions (AgentAside). Every command
// that walks a directory, on the command line or through MCP, finds the same files.
func Found(path, name string, archived bool) bool {
	session := strings.HasSuffix(name, ".jsonl") || archived && IsSessionName(name) ||
		name == openhandsconv.StateFile && openhandsconv.IsConversation(path) || continueSessionName(path, name) ||
		clinesess.Named(path) || clinetask.Named(path) || nanocodersess.IsSession(path)
	return (session || sessionstore.FoundAsStore(name) || sessionstore.FoundAsGooseStore(path, name)) && !AgentAside(path)
}

// AgentAside: a JSONL file an agent keeps beside its sessions (Qwen Code's usage logs under
// ~/.qwen; Gemini CLI's sessions are ~/.gemini/tmp/<project>/chats/*.jsonl, Qwen Code's
// ~/.qwen/projects/<project>/chats/*.jsonl), or any of Cline's (~/.cline: its logs) or of Goose's
// logs (~/.local/state/goose/logs: the requests it sent), which a directory walk leaves out.
func AgentAside(path string) bool {
	p := filepath.ToSlash(path)
	if strings.Contains(p, "/.cline/") && strings.HasSuffix(p, ".jsonl") {
		return true // (Cline's logs: its sessions are JSON documents)
	}
	if strings.Contains(p, "/goose/logs/") && strings.HasSuffix(p, ".jsonl") {
		return true // (Goose's logs: its sessions are in its SQLite store)
	}
	for _, home := range []string{"/.gemini/", "/.qwen/"} {
		if !strings.Contains(p, home) { // (a vector search; LastIndex is a byte loop, run on every file of a walk)
			continue
		}
		if i := strings.LastIndex(p, home); i >= 0 && !strings.Contains(p[i:], "/chats/") {
			return true
		}
	}
	return false
}

// StoreSessions is a file as the commands read it: an OpenClaw SQLite store (a *.sqlite file
// with a transcript_events table; in a directory, agents/<agent>/agent/openclaw-agent.sqlite)
// stands for each of its sessions, named STORE#SESSION-ID; any other file for itself.
func StoreSessions(path string) ([]string, error) {
	if !sessionstore.IsStoreFile(path) {
		return []string{path}, nil
	}
	return sessionstore.ListSessions(path)
}
