// Package omp is ctxc's code for Oh My Pi's sessions (omp, a fork of pi). omp keeps pi's
// session entries (a v3 id/parentId tree) and its reload rule, so pi's reader reads them, in
// omp's dialect (Dialect): a title slot line above the header, and its summaries sent to the
// model in wrappers of its own, rendered as it renders its prompt templates; its sessions are a
// format of their own.
//
// Read from omp 18.2.3 (its buildSessionContext, as pi's): the leaf is the last entry of the
// file; the path is the leaf and its parentId ancestors; the last compaction on the path starts
// the context: its summary, then the path entries from firstKeptEntryId up to the compaction,
// then the path entries after it. A compaction's summary is sent in its handoff wrapper when the
// compaction wrote a handoff document ("method":"handoff"), else in its summary wrapper; a
// branch's in its branch wrapper. omp adds a <system-reminder> of the day and the working
// folder to the first user message of every request: it is not in the file, and not in the
// context ctxc loads.
package omp

import (
	"github.com/ctxc/ctxc/internal/agent/pi"
	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
)

// HeaderType is the type of the first line of an omp session, its title slot
// ({"type":"title","v":1,"title":...,"pad":"   "}, rewritten in place as the title changes);
// the session header {"type":"session","version":3,...} comes after it.
const HeaderType = pi.TitleType

// omp's wrappers for summaries sent to the model (omp 18.2.3's prompt templates, rendered).
const (
	SummaryHead = "Prior model work/tool state available.\nMUST build on prior work; NEVER duplicate prior work.\n\n<summary>\n"
	SummaryTail = "\n</summary>"
	HandoffHead = "Context replaced. The <handoff> below is a handoff document a prior instance of you wrote from the full conversation. It is your own working memory, not user input.\n" +
		"- First person inside it refers to you (the prior instance).\n" +
		"- \"Next Steps\" is your own resumed plan; re-check it against the latest user message before acting.\n" +
		"- The handoff already exists and is complete: NEVER write another handoff document unless the user explicitly asks.\n" +
		"MUST build on prior work; NEVER duplicate prior work.\n\n<handoff>\n"
	HandoffTail = "\n</handoff>"
	BranchHead  = "Branch-return summary:\n\n<summary>\n"
	BranchTail  = "\n</summary>"
)

// handoffMethod is the "method" of a compaction whose summary is a handoff document.
const handoffMethod = "handoff"

// Dialect is omp's dialect of pi's sessions.
var Dialect = &pi.Dialect{Format: conv.FormatOmp, BranchHead: BranchHead, BranchTail: BranchTail,
	Render: Render, Title: HeaderType, Summary: summaryWrapper}

// summaryWrapper gives the texts around a compaction's summary: its handoff wrapper when the
// compaction wrote a handoff document (method), else its summary wrapper.
func summaryWrapper(method string) (head, tail string) {
	if method == handoffMethod {
		return HandoffHead, HandoffTail
	}
	return SummaryHead, SummaryTail
}

// NewReader returns a reader of one omp session.
func NewReader() conv.Reader { return Dialect.NewReader() }

// Record decodes one line of an omp session on its own (grep, the index).
func Record(v jsonl.Value) conv.Record { return Dialect.Record(v) }

// Wrappers are the texts omp puts around the summaries it sends.
var Wrappers = []conv.Wrapper{conv.Head(SummaryHead), conv.Tail(SummaryTail), conv.Head(HandoffHead), conv.Tail(HandoffTail),
	conv.Head(BranchHead), conv.Tail(BranchTail)}

// LineTypes tell omp's session by its title slot line (pi's sessions have none).
var LineTypes = []conv.LineType{{Type: HeaderType, NoID: true}}
