package lint

import (
	"fmt"
	"io"
	"sort"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/quote"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/tidwall/gjson"
)

// Problem kinds found by File.
const (
	ProblemOpenCall       = "call-without-result"
	ProblemOrphanResult   = "result-without-call"
	ProblemDuplicateID    = "duplicate-id"
	ProblemResultOrder    = "result-not-after-call"
	ProblemBrokenChain    = "broken-parent-chain"
	ProblemNestedSummary  = "summary-inside-kept-range"
	ProblemAssistantFirst = "context-starts-with-assistant"
)

// Problem is something in a session that would make its next API request fail or mislead.
type Problem struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Kind string `json:"kind"`
	ID   string `json:"id,omitempty"` // the tool-call id concerned
	Msg  string `json:"message"`
}

// String is the problem as printed: the path as quote.Name prints it.
func (p Problem) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", quote.Name(p.Path), p.Line, p.Kind, p.Msg)
}

// File checks the effective context of a file (as the agent would reload it) for what an API
// rejects or what misleads the model: calls and results that do not pair up, duplicate ids,
// results away from their call, more than one summary, a context that opens with the
// assistant, and (Claude Code) a parentUuid that names no record, which silently cuts the
// history the agent reloads.
func File(path string, format transcript.Format) ([]Problem, transcript.Format, error) {
	res, msgs, err := transcript.LoadFile(path, transcript.Options{Format: format})
	if err != nil {
		return nil, "", err
	}
	f := res.Stats.Format
	probs := lintMessages(path, msgs, f)
	if c := f.Agent().Lint.Chain; c != nil {
		chain, err := lintChain(path, c)
		if err != nil {
			return nil, f, err
		}
		probs = append(chain, probs...)
	}
	sort.SliceStable(probs, func(i, j int) bool { return probs[i].Line < probs[j].Line })
	return probs, f, nil
}

type callAt struct {
	line, msg int
	pending   int // calls with this id not answered yet
}

func lintMessages(path string, msgs []transcript.Message, f transcript.Format) []Problem {
	var out []Problem
	add := func(line int, kind, id, msg string, args ...any) {
		out = append(out, Problem{Path: path, Line: line, Kind: kind, ID: id, Msg: fmt.Sprintf(msg, args...)})
	}
	calls := map[string]*callAt{}
	var order []string // call ids in order
	lastAsst := -1     // index of the latest assistant message
	summaries := 0
	first := true
	for i := range msgs {
		m := &msgs[i]
		if transcript.IsSynthesizedResult(m) && !transcript.OnlyResultsAfter(msgs, i) {
			// Codex answers a call left open with "aborted" on resume: at the end of the
			// session, an interruption; before later turns, a lost result.
			for _, b := range m.Blocks {
				if c, ok := calls[b.ID]; ok && c.pending > 0 {
					c.pending--
					add(c.line, ProblemOpenCall, b.ID, "tool call %q has no result: Codex sends \"aborted\" as its output, so the model reads that the call was aborted", b.ID)
				}
			}
			continue
		}
		if m.Summary {
			summaries++
			if summaries > 1 {
				add(m.Line, ProblemNestedSummary, "", "a second compaction summary inside the context: an earlier compaction's summary is part of the kept range")
			}
		}
		if first && m.Role != transcript.RoleSystem && m.Role != transcript.RoleDeveloper {
			first = false
			if m.Role == transcript.RoleAssistant && !f.Agent().Lint.AssistantFirst {
				add(m.Line, ProblemAssistantFirst, "", "the context starts with an assistant message: an Anthropic request must start with a user turn")
			}
		}
		if m.Role == transcript.RoleAssistant {
			lastAsst = i
		}
		for _, b := range m.Blocks {
			switch b.Kind {
			case transcript.BlockToolCall:
				if c, dup := calls[b.ID]; dup {
					add(m.Line, ProblemDuplicateID, b.ID, "tool call id %q is used again (first at line %d): a result cannot say which call it answers", b.ID, c.line)
					c.pending++
					c.msg, c.line = i, m.Line
					continue
				}
				calls[b.ID] = &callAt{line: m.Line, msg: i, pending: 1}
				order = append(order, b.ID)
			case transcript.BlockToolResult:
				c, ok := calls[b.ID]
				switch {
				case !ok:
					add(m.Line, ProblemOrphanResult, b.ID, "tool result for %q, which no earlier call in the context made", b.ID)
				case c.pending == 0:
					add(m.Line, ProblemDuplicateID, b.ID, "a second result for call %q (line %d)", b.ID, c.line)
				default:
					c.pending--
					if c.msg != lastAsst {
						add(m.Line, ProblemResultOrder, b.ID, "the result of call %q (line %d) comes after other turns: it must follow its call's message (an API refuses it; Claude Code sends an error result in its place)", b.ID, c.line)
					}
				}
			}
		}
	}
	for _, id := range order {
		if c := calls[id]; c.pending > 0 {
			add(c.line, ProblemOpenCall, id, "tool call %q has no result in the context: %s", id, openCallEffect(f))
		}
	}
	return out
}

// openCallEffect says what a call without a result does to the next request (the agent's own
// handling, the registry's; else what an API does).
func openCallEffect(f transcript.Format) string {
	if e := f.Agent().Lint.OpenCall; e != "" {
		return e
	}
	return "an API refuses the request (a tool call needs its result right after it)"
}

// lintChain finds records whose parent (by the agent's chain keys) names no record of the file.
func lintChain(path string, c *agent.Chain) ([]Problem, error) {
	f, err := transcript.OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lr := jsonl.NewLineReader(f)
	seen := map[string]bool{}
	type ref struct {
		line   int
		parent string
	}
	var refs []ref
	for {
		l, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if !gjson.ValidBytes(l.Bytes) {
			continue
		}
		r := gjson.GetManyBytes(l.Bytes, c.ID, c.Parent, c.Side)
		if r[0].Type == gjson.String {
			seen[r[0].String()] = true
		}
		if r[2].Bool() || r[1].Type != gjson.String || r[1].String() == "" {
			continue
		}
		refs = append(refs, ref{l.Num, r[1].String()})
	}
	var out []Problem
	for _, r := range refs {
		if !seen[r.parent] {
			out = append(out, Problem{Path: path, Line: r.line, Kind: ProblemBrokenChain,
				Msg: fmt.Sprintf("%s %q names no record of the file: %s", c.Parent, r.parent, c.Cut)})
		}
	}
	return out, nil
}
