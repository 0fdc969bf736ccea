// Package agent is the registry of the session formats ctxc reads: for each, one descriptor of
// the plain facts every package asks about (its --format name, a line that says what it is, the
// command that resumes one of its sessions, the tools its agent calls on files and the argument
// keys that hold their paths, the byte string a line holding one of its compaction records
// contains). Each agent's descriptor and its name are in its own file; All lists them in
// --format's order.
//
// It imports nothing of ctxc, so that every package may ask it, transcript included. An agent's
// code (its reader, its writers, the line types and wrappers detection and grep ask about) is
// its own package under internal/agent/<name>/, keyed by the same name in transcript's list of
// agent codes.
package agent

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Agent describes one format.
type Agent struct {
	Name        string // as --format takes it
	Description string // one line, for help texts and README's table
	// Homes are the folders (or the store file), under the user's home, where the agent keeps
	// its sessions, each a path's elements: where `ctxc search` looks when given no PATH.
	Homes [][]string
	// Resume is the command that resumes a session, without its argument; "" when the format
	// has none (a message list). ByPath says the argument is the file's path, not the session id.
	Resume string
	ByPath bool
	// SessionOf is the session id a file's path names, for an agent whose records name none
	// (nil: its records name it, as "sessionId" or its header's id).
	SessionOf func(path string) string
	// ResumeIn says where a session is resumed when no command does it (an editor's panel).
	ResumeIn string
	// Generic is a plain message list, written by any client, that ctxc may append markers to.
	Generic bool
	// Tools are the names of the agent's tools, by what their calls do to files.
	Tools Tools
	// CtxcOutput: `compact -o` writes a ctxc-format file for this agent's sessions, the agent
	// taking no session ctxc writes (opencode keeps its sessions in its database).
	CtxcOutput bool
	// CompactionProbe is a byte string every line holding one of the format's compaction
	// records contains: only those lines need decoding to list the compactions.
	CompactionProbe string
	// Kept says how the agent's compaction records name the records they keep.
	Kept Kept
	// UsageProbes are the byte strings a line holds when it records a response's usage or its
	// model, for the agents whose usage `stats --cost` and the reports read (none: the agent
	// records none ctxc reads): only those lines are parsed.
	UsageProbes []string
	// Lint is what `ctxc lint` knows of how the agent rebuilds a context from a session.
	Lint Lint
	// Handoff: how a conversation is handed to the agent as a new session (nil: it is not a
	// target of `ctxc handoff`).
	Handoff *Handoff
	// CompactNote: after its own compaction the agent starts the context again with a hook's
	// SessionStart event (source "compact"), or ctxc's plugin for it sends one, and adds the
	// hook's answer to it, so `ctxc hook` can answer with the note of what the compaction may
	// have lost.
	CompactNote bool
	// ToolNote: the agent runs a hook after each tool call and adds its answer to the next
	// request, so `ctxc hook` can answer, at the first tool call after the agent's own
	// compaction, with the note of what the compaction lost.
	ToolNote bool
	// CompactContext: before its own compaction the agent gives a plugin's text to its
	// summarizer (opencode's experimental.session.compacting), so `ctxc hook` answers a
	// PreCompact event with the ledger of the context about to be summarized.
	CompactContext bool
}

// Kept is how an agent's compaction record names what the context keeps of the records before
// it, by the keys of its JSON.
type Kept struct {
	// IDKey is the key of a record's id, by which the record names those it keeps.
	IDKey string
	// FirstID is the key of the first kept record's id (all after it are kept), FirstIndex of
	// the first kept entry's index (the file's header entry 0), IDs the path of the list of
	// the kept records' ids.
	FirstID, FirstIndex, IDs string
	// Rebuild: the records name nothing kept; what the agent rebuilds from the newest one is
	// what it kept.
	Rebuild bool
}

// Lint is what an agent does with a session that an API would refuse or that cuts its history.
type Lint struct {
	// Chain: each record names its parent by id, and the agent's resume follows the chain.
	Chain *Chain
	// AssistantFirst: the agent sends a context that opens with an assistant message as the API
	// takes it, so such a context is no problem of the session.
	AssistantFirst bool
	// OpenCall says what the agent does with a tool call that has no result when it sends the
	// next request ("": the API refuses the request, a call needing its result right after it).
	OpenCall string
}

// Chain is how an agent's records name their parent: the keys of a record's id, of its
// parent's id and of the flag of a record off the main chain (a side chain's parent may be
// elsewhere); Cut says what the agent does at a parent that names no record.
type Chain struct {
	ID, Parent, Side string
	Cut              string
}

// Tools are tool names as an agent writes them in its calls, by kind, and the keys of the
// arguments that hold the file a call works on.
type Tools struct {
	Edit, Read, Patch, Shell []string
	PathKeys                 []string
}

// defaultCompactionProbe is in every compaction record of most formats ("compact_boundary",
// "compacted", "compaction", a ctxc marker's "compact").
const defaultCompactionProbe = "compact"

// All lists every format, in the order --format's help names them. The slice is shared: read it,
// never change it.
func All() []Agent { return all() }

// all is made on first use: nothing is built as a process starts.
var all = sync.OnceValue(func() []Agent {
	return []Agent{openAI, anthropic, ctxc, claudeCode, codex, pi, copilot, droid, geminiCLI, qwenCode, opencode,
		aider,
		openhands,
		continueCLI,
		kilo,
		cline,
		goose,
		nanocoder,
		sweAgent,
		miniSWE,
		clineTask,
		rooCode,
		omp,
		kimiCode,
	}
})

// Names lists the formats' names, in All's order.
func Names() []string {
	all := All()
	out := make([]string, len(all))
	for i, a := range all {
		out[i] = a.Name
	}
	return out
}

// SessionDirs are the folders under home where the agents keep their sessions, in All's order.
func SessionDirs(home string) []string {
	var out []string
	for _, a := range all() {
		for _, h := range a.Homes {
			out = append(out, filepath.Join(append([]string{home}, h...)...))
		}
	}
	return out
}

// AgentNames lists the names of the formats an agent writes (not a message list), in All's order.
func AgentNames() []string {
	var out []string
	for _, a := range all() {
		if !a.Generic {
			out = append(out, a.Name)
		}
	}
	return out
}

// NativeOutputNames lists the formats whose `compact -o` writes a new session of the agent, in
// All's order.
func NativeOutputNames() []string {
	var out []string
	for _, a := range all() {
		if !a.Generic && !a.CtxcOutput {
			out = append(out, a.Name)
		}
	}
	return out
}

// UsageProbes is every agent's usage probes, in All's order, each once: what a line of an
// unknown format (a stream) is searched for.
var UsageProbes = sync.OnceValue(func() []string {
	var out []string
	for _, a := range all() {
		for _, p := range a.UsageProbes {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
})

// Lookup finds a format by its name.
func Lookup(name string) (Agent, bool) {
	a := all()
	for i := range a {
		if a[i].Name == name {
			return a[i], true
		}
	}
	return Agent{}, false
}

// ResumeCommand is the command that resumes a session given its id and its file's path ("" when
// the format has none, or the argument it needs is unknown). argument is shell-quoted by quote.
func (a Agent) ResumeCommand(session, path string, quote func(string) string) string {
	arg := session
	if a.ByPath {
		arg = path
	}
	if a.Resume == "" || arg == "" {
		return ""
	}
	if strings.HasSuffix(a.Resume, "=") {
		return a.Resume + quote(arg)
	}
	return a.Resume + " " + quote(arg)
}

// SessionID is the session id a file's records name, else the one its path names (SessionOf).
func (a Agent) SessionID(recorded, path string) string {
	if recorded == "" && a.SessionOf != nil {
		return a.SessionOf(path)
	}
	return recorded
}

// Probe is CompactionProbe, or the default one.
func (a Agent) Probe() string {
	if a.CompactionProbe != "" {
		return a.CompactionProbe
	}
	return defaultCompactionProbe
}
