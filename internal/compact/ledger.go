package compact

import (
	"github.com/ctxc/ctxc/internal/ledger"
	"github.com/ctxc/ctxc/internal/summarize"
	"github.com/ctxc/ctxc/internal/transcript"
)

// auditSummary audits the summary against the fact ledger of the summarized items (package
// ledger, built beside the summarizer): the facts the summarizer left out are appended
// verbatim, within target. It runs after every summarizer, LLM or extractive.
func auditSummary(sum *summarize.Result, led *ledger.Ledger, target int) (*ledger.Ledger, *ledger.Report) {
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
