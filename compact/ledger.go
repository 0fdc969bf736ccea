package compact

import (
	"github.com/ctxc/ctxc/ledger"
	"github.com/ctxc/ctxc/summarize"
	"github.com/ctxc/ctxc/transcript"
)

// auditSummary builds the fact ledger of the summarized items and audits the summary against
// it (package ledger): the facts the summarizer left out are appended verbatim, within target.
// It runs after every summarizer, LLM or extractive.
func auditSummary(sum *summarize.Result, items []summarize.Item, target int) (*ledger.Ledger, *ledger.Report) {
	led := ledger.Build(items, ledger.Options{})
	text, rep := ledger.Audit(sum.Text, led, target)
	sum.Text = text
	return led, &rep
}

// markerLedger is the audit's counts as the marker records them.
func markerLedger(rep *ledger.Report) *transcript.LedgerCounts {
	if rep == nil {
		return nil
	}
	return &transcript.LedgerCounts{Facts: rep.Facts, Present: rep.Present, Carried: rep.Carried, Dropped: rep.Dropped}
}
