package compact

import (
	"context"
	"fmt"

	"github.com/ctxc/ctxc/internal/estimate"
	"github.com/ctxc/ctxc/internal/summarize"
	"github.com/ctxc/ctxc/internal/transcript"
)

func makePlan(path string, format transcript.Format, msgs []transcript.Message, o *Options) (*Plan, Zones) {
	p := &Plan{Path: path, Format: format, Threshold: o.EffectiveThreshold(), Target: o.target()}
	p.TokensBefore = tokens(msgs)
	z := PlanZones(msgs, o.Zones)
	preamble := estimate.Tokens(transcript.SummaryPreamble)
	p.Tier, p.TierReason = tierOf(p.TokensBefore, p.Threshold, o)
	if p.Tier == TierAggressive {
		p.Target = max(o.target()*3/4, min(o.target(), 256))
	}
	predict := func() int {
		return tokens(msgs[:z.HeadEnd]) + p.Target + preamble + tokens(msgs[z.TailStart:])
	}
	p.PredictedAfter = predict()
	gainOK := func(after int) bool { return float64(after) <= float64(p.TokensBefore)*(1-MinGain) }
	if len(msgs) > 0 && p.TokensBefore > p.Threshold && p.Tier != TierEmergency && (p.PredictedAfter >= p.Threshold || !gainOK(p.PredictedAfter)) {
		// The protected zones alone leave no room: only the emergency level can fit.
		p.Tier, p.TierReason = TierEmergency, fmt.Sprintf("head + tail + summary (%d tokens) would not fall below the threshold", p.PredictedAfter)
	}
	if p.Tier == TierEmergency && p.TokensBefore > p.Threshold {
		// Room for the kept messages and the summary: 90% of the threshold. The summary keeps
		// its whole target when cutting the kept messages makes room (the fact ledger needs
		// it); only when even that is not enough does the target shrink, down to a floor.
		base := z
		for _, target := range emergencyTargets(o.target()) {
			z = ShrinkTail(msgs, base, p.Threshold*9/10-target-preamble-tokens(msgs[:base.HeadEnd]), format.Native())
			// Cut tool results (and, for plain message lists, call arguments) in the kept
			// messages; an agent's call records are not rewritten.
			cuts, kept := PlanCuts(msgs, z.HeadEnd, z.TailStart, p.Threshold*9/10-target-preamble, format.Native())
			p.Target, p.Cuts = target, cuts
			p.PredictedAfter = kept + target + preamble
			if p.PredictedAfter < p.Threshold {
				break
			}
		}
	}
	p.Head = zone(msgs[:z.HeadEnd])
	p.Middle = zone(msgs[z.HeadEnd:z.TailStart])
	p.Tail = zone(msgs[z.TailStart:])
	switch {
	case len(msgs) == 0:
		p.Reason = ReasonEmpty
	case p.TokensBefore <= p.Threshold:
		p.Reason = ReasonUnderThreshold
		p.Tier, p.TierReason, p.Target = "", "", o.target()
	case z.MiddleLen() == 0:
		p.Reason = ReasonEmptyMiddle
	case p.PredictedAfter >= p.Threshold:
		p.Reason = ReasonNoGain
	case !gainOK(p.PredictedAfter):
		p.Reason = ReasonLittleGain
	default:
		p.Compact = true
	}
	return p, z
}

// emergencyTargets are the summary targets an emergency plan tries in turn: the whole target,
// half, a quarter, and a floor that keeps a summary useful (never above the target).
func emergencyTargets(target int) []int {
	return []int{target, max(target/2, min(target, 256)), max(target/4, min(target, 128)), min(target, 128)}
}

// tierOf says which tier a context of before tokens is in, and why.
func tierOf(before, threshold int, o *Options) (string, string) {
	t := o.Tiers
	if t.Normal <= 0 {
		t = DefaultTiers
	}
	if before <= threshold {
		return "", ""
	}
	base, of := float64(o.Window), "--window"
	if base <= 0 {
		base, of = float64(threshold)/t.Normal, "the threshold's window"
	}
	share := float64(before) / base
	switch {
	case t.Emergency > 0 && share >= t.Emergency:
		return TierEmergency, fmt.Sprintf("%.0f%% of %s (emergency from %.0f%%)", share*100, of, t.Emergency*100)
	case t.Aggressive > 0 && share >= t.Aggressive:
		return TierAggressive, fmt.Sprintf("%.0f%% of %s (aggressive from %.0f%%)", share*100, of, t.Aggressive*100)
	}
	return TierNormal, fmt.Sprintf("over the threshold (%.0f%% of %s)", share*100, of)
}

func zone(ms []transcript.Message) Zone {
	z := Zone{Messages: len(ms), Tokens: tokens(ms)}
	for _, m := range ms {
		if m.Line <= 0 {
			continue
		}
		if z.FromLine == 0 || m.Line < z.FromLine {
			z.FromLine = m.Line
		}
		if m.Line > z.ToLine {
			z.ToLine = m.Line
		}
	}
	return z
}

// fillWindow adds to a dry-run plan how the summarizer request would be sent.
func fillWindow(ctx context.Context, p *Plan, msgs []transcript.Message, z Zones, o *Options) error {
	req := summarize.Request{Items: transcript.Flatten(msgs[z.HeadEnd:z.TailStart]), TargetTokens: p.Target, Instructions: o.Instructions}
	window := o.SummarizeOpts.Window
	if window == 0 && o.Client != nil {
		w, err := o.Client.Window(ctx)
		if err != nil {
			return err
		}
		window = w
	}
	if window == 0 {
		p.SummarizerInput = summarize.Plan(req, 1<<30).InputTokens
		p.Fits, p.Chunks = true, 0
		return nil
	}
	info := summarize.Plan(req, window)
	p.SummarizerWindow = window
	p.SummarizerInput, p.Fits, p.Chunks = info.InputTokens, info.Fits, info.Chunks
	return nil
}
