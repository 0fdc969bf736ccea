package report

import (
	"fmt"
	"html"
	"html/template"
	"strings"
)

// windowScale is how near its window a session's context must come for the chart to be drawn
// to the window's scale.
const windowScale = 0.25

// WindowOnChart says whether the chart is drawn to the window's scale: the context came within
// windowScale of it.
func (s *Session) WindowOnChart() bool {
	if s.Window <= 0 {
		return false
	}
	for _, p := range s.Points {
		if float64(p.Tokens) >= float64(s.Window)*windowScale {
			return true
		}
	}
	return false
}

// The chart's frame, in SVG user units (the SVG scales to the page's width).
const (
	chartW, chartH = 900, 240
	padL, padR     = 64, 12
	padT, padB     = 18, 28
)

// chart draws a session's context per turn against its window: a line through the turns, a
// point per turn (titled with its turn, line and tokens) when points is set, a dashed line at the
// window and a vertical mark per compaction linking to its audit. Every text is escaped.
func chart(s *Session, num int, points bool) template.HTML {
	var b strings.Builder
	turns := max(s.Turns, 1)
	peak := 0.0
	for _, p := range s.Points {
		peak = max(peak, float64(p.Tokens))
	}
	// The window sets the scale unless the context never came near it: then the curve gets the
	// height and the window is said above the frame, so that a small session is not a flat line.
	top, windowShown := peak, s.WindowOnChart()
	if windowShown {
		top = max(top, float64(s.Window))
	}
	top = max(top*1.08, 1)
	plotW, plotH := float64(chartW-padL-padR), float64(chartH-padT-padB)
	x := func(turn float64) float64 { return padL + (turn+0.5)/float64(turns)*plotW }
	y := func(tokens float64) float64 { return padT + plotH - tokens/top*plotH }

	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="context per turn" data-turns="%d" data-compactions="%d">`,
		chartW, chartH, s.Turns, len(s.Compactions))
	for k := 0; k <= 4; k++ {
		v := top / 1.08 * float64(k) / 4
		fmt.Fprintf(&b, `<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/><text class="tick" x="%d" y="%.1f">%s</text>`,
			padL, chartW-padR, y(v), y(v), padL-6, y(v)+4, short(int64(v)))
	}
	fmt.Fprintf(&b, `<text class="axis" x="%d" y="%d">turns (%d)</text>`, padL+int(plotW)/2, chartH-6, s.Turns)
	if s.Window > 0 && !windowShown {
		fmt.Fprintf(&b, `<text class="wlabel" x="%d" y="%d">window %s: off the scale, the context peaked at %.0f%% of it</text>`,
			padL+4, padT-2, short(int64(s.Window)), peak/float64(s.Window)*100)
	}
	if windowShown {
		fmt.Fprintf(&b, `<line class="window" x1="%d" x2="%d" y1="%.1f" y2="%.1f"><title>window: %s tokens (%s)</title></line><text class="wlabel" x="%d" y="%.1f">window %s</text>`,
			padL, chartW-padR, y(float64(s.Window)), y(float64(s.Window)), human(int64(s.Window)), html.EscapeString(s.WindowFrom),
			padL+4, y(float64(s.Window))-4, short(int64(s.Window)))
	}
	for k := range s.Compactions {
		c := &s.Compactions[k]
		cx := x(c.At)
		lx, anchor := cx+3, "start" // the label beside the mark, inside the frame
		if cx > chartW-padR-30 {
			lx, anchor = cx-3, "end"
		}
		fmt.Fprintf(&b, `<a href="#s%d-c%d"><line class="compaction" x1="%.1f" x2="%.1f" y1="%d" y2="%.1f"><title>%s</title></line><text class="clabel" x="%.1f" y="%d" text-anchor="%s">#%d</text></a>`,
			num, c.Index, cx, cx, padT, padT+plotH, html.EscapeString(compactionTitle(c)), lx, padT+10, anchor, c.Index)
	}
	if len(s.Points) > 0 {
		b.WriteString(`<polyline class="context" points="`)
		for _, p := range s.Points {
			fmt.Fprintf(&b, "%.1f,%.1f ", x(float64(p.Turn)), y(float64(p.Tokens)))
		}
		b.WriteString(`"/>`)
	}
	if points {
		r := 2.6
		if len(s.Points) > 300 {
			r = 1.4
		}
		for _, p := range s.Points {
			class, how := "turn", "recorded"
			if !p.Recorded {
				class, how = "turn est", "estimated"
			}
			fmt.Fprintf(&b, `<circle class="%s" cx="%.1f" cy="%.1f" r="%.1f"><title>turn %d · line %d · %s tokens %s</title></circle>`,
				class, x(float64(p.Turn)), y(float64(p.Tokens)), r, p.Turn+1, p.Line, human(p.Tokens), how)
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// compactionTitle is a compaction's one-line audit.
func compactionTitle(c *Compaction) string {
	if c.Unreadable != "" {
		return fmt.Sprintf("compaction #%d (line %d, by %s): summary unreadable: %s", c.Index, c.Line, c.By, c.Unreadable)
	}
	return fmt.Sprintf("compaction #%d (line %d, by %s): %s → %s tokens; kept %d of %d facts, lost %d",
		c.Index, c.Line, c.By, human(int64(c.TokensBefore)), human(int64(c.TokensAfter)), c.Total.Kept, c.Total.Facts, c.LostFacts())
}

// short writes a token count as 12k or 1.2M.
func short(n int64) string {
	switch {
	case n >= 1_000_000_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e9), ".0") + "B"
	case n >= 1_000_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e6), ".0") + "M"
	case n >= 1000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// human writes a count with thousands separators.
func human(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// usd writes a cost.
func usd(v float64) string {
	switch {
	case v == 0:
		return "$0"
	case v < 0.01:
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}
