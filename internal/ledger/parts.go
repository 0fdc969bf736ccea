package ledger

import (
	"strings"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/prose"
)

// The ledger's extraction rules, one message or tool call at a time, for readers that keep
// facts across many sessions (package memory) rather than the ledger of one middle zone.

// Typed reports whether a user-role text is something the user typed, not text the harness
// wrote (environment context, command output, reminders, continuation preambles).
func Typed(text string) bool {
	t := strings.TrimSpace(text)
	return norm(t) != "" && !injected(t)
}

// RuleSentences returns the sentences of a user's text that state a rule or preference (the
// ledger's cues: always, never, don't, use, prefer, make sure...), each elided to max
// characters, in order. A text the harness wrote has none, and what the user pasted (logs,
// JSON, stack traces, code: prose.Own) neither.
func RuleSentences(text string, max int) []string {
	if !Typed(text) || !ruleCues().MatchString(text) {
		return nil
	}
	var out []string
	for _, s := range sentences(strings.TrimSpace(prose.Own(text))) {
		if ruleCues().MatchString(s) {
			out = append(out, elide(s, max))
		}
	}
	return out
}

// Sentences splits a text at sentence ends and line breaks.
func Sentences(text string) []string { return sentences(text) }

// ChangedFiles lists the files a tool call changes, as the ledger's files_modified category
// counts them: edit and write tools, apply_patch, and shell commands that write files.
func ChangedFiles(name, args string) []string {
	b := builder{calls: map[int]string{}}
	b.toolCall(name, args)
	items, _, _ := b.modified.all()
	return items
}

// ShellScript is the script a shell tool call runs, and whether the call is a shell call.
func ShellScript(name, args string) (string, bool) {
	if agent.KindOf(name) != agent.ShellTool {
		return "", false
	}
	argv, script := shellCommand(args)
	if script == "" && len(argv) > 0 {
		script = strings.Join(argv, " ")
	}
	return script, script != ""
}

// Key is the form in which facts are compared: lower case, whitespace runs as one space,
// without Markdown emphasis, code marks and typographic quotes.
func Key(s string) string { return norm(s) }
