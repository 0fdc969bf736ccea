package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/ctxc/ctxc/internal/usage"
)

// teeUsage reads the recorded usage of a stream while the scan reads it: the stream cannot be
// read twice. wait, called once the scan is done, gives the responses.
func teeUsage(in io.Reader) (io.Reader, func() []usage.Response) {
	pr, pw := io.Pipe()
	done := make(chan []usage.Response, 1)
	go func() {
		rs, _ := usage.Read(pr, transcript.FormatUnknown)
		io.Copy(io.Discard, pr) // what the scan reads after a line the usage reader refused
		done <- rs
	}()
	return io.TeeReader(in, pw), func() []usage.Response {
		pw.Close()
		return <-done
	}
}

// readUsage starts reading the responses a session file records and returns what waits for
// them. Its format is known from its first lines (or --format), read before the scan starts: a
// first line of 100 MB read by both at once would be mapped twice, each read of it as much
// memory as the line; a format that records no usage is not read further.
func readUsage(path string, forced transcript.Format) func() ([]usage.Response, error) {
	type result struct {
		rs  []usage.Response
		err error
	}
	format, err := detect(path, forced)
	if err != nil || !usage.Recorded(format) {
		return func() ([]usage.Response, error) { return nil, nil } // the scan says what is wrong with the file
	}
	done := make(chan result, 1)
	go func() {
		rs, err := usage.File(path, format)
		done <- result{rs, err}
	}()
	return func() ([]usage.Response, error) {
		r := <-done
		return r.rs, r.err
	}
}

// detect is a session file's format (forced: --format).
func detect(path string, forced transcript.Format) (transcript.Format, error) {
	f, err := transcript.OpenFile(path)
	if err != nil {
		return transcript.FormatUnknown, err
	}
	defer f.Close()
	return transcript.DetectFile(f, transcript.Options{Format: forced})
}

// recordedOnly keeps the responses of a stream whose format records usage.
func recordedOnly(f transcript.Format, rs []usage.Response) []usage.Response {
	if !usage.Recorded(f) {
		return nil
	}
	return rs
}

// statsCost prices a file's recorded usage (nil when it records none).
func statsCost(st *transcript.Stats, rs []usage.Response, p *usage.Prices) *usage.Cost {
	if len(rs) == 0 {
		return nil
	}
	return p.Sum(rs)
}

// addCost counts one file's cost in the totals.
func (tot *statsTotals) addCost(c *usage.Cost) {
	if c == nil {
		return
	}
	tot.costed++
	tot.CostUSD += c.USD
	for _, m := range c.Unpriced {
		if !contains(tot.Unpriced, m) {
			tot.Unpriced = append(tot.Unpriced, m)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// costCell is a file's COST: "-" without recorded usage, a trailing "+?" when some of its
// models have no price, "?" when none has.
func costCell(c *usage.Cost) string {
	if c == nil {
		return "-"
	}
	if !c.Complete() && c.USD == 0 {
		return "?"
	}
	return usdCell(c.USD, !c.Complete())
}

// totalCostCell is the totals row's cost: "-" when no file recorded usage, as in its rows.
func totalCostCell(tot statsTotals) string {
	if tot.costed == 0 {
		return "-"
	}
	return usdCell(tot.CostUSD, len(tot.Unpriced) > 0)
}

func usdCell(v float64, partial bool) string {
	s := fmt.Sprintf("$%.2f", v)
	if v > 0 && v < 0.01 {
		s = fmt.Sprintf("$%.4f", v)
	}
	if partial {
		s += "+?"
	}
	return s
}

// printCostNote says under the table which price table priced it and which models it lacks.
func printCostNote(w io.Writer, tot statsTotals, p *usage.Prices) {
	if len(tot.Unpriced) > 0 {
		fmt.Fprintf(w, "\nnot priced (no price for %s): add them with --prices FILE\n", strings.Join(tot.Unpriced, ", "))
	}
}

// barWidth is the cells of a window bar.
const barWidth = 10

// windowBar gives, on a terminal, the FULL cell of a file: how full its window is, as a bar and a
// percent: the last context the agent recorded, else the estimate of the effective context,
// against the window (--window, else the one the agent recorded, else the one of its model in the
// price table). "-" when the window is unknown.
func windowBar(window int, p *usage.Prices) func(*transcript.Stats, *usage.Cost) string {
	return func(st *transcript.Stats, c *usage.Cost) string {
		w := sessionWindow(st, c, window, p)
		if w <= 0 {
			return "-"
		}
		used := st.EffTokens
		if st.Usage != nil && st.Usage.LastContext > 0 {
			used = int64(st.Usage.LastContext)
		}
		return drawBar(float64(used) / float64(w))
	}
}

// drawBar draws a share of the window as barWidth cells and its percent.
func drawBar(share float64) string {
	full := int(min(max(share, 0), 1)*barWidth + 0.5)
	return strings.Repeat("█", full) + strings.Repeat("░", barWidth-full) + fmt.Sprintf(" %3.0f%%", share*100)
}

// sessionWindow is a session's window: the flag's, the agent's record, its model's.
func sessionWindow(st *transcript.Stats, c *usage.Cost, window int, p *usage.Prices) int {
	switch {
	case window > 0:
		return window
	case st.Usage != nil && st.Usage.ContextWindow > 0:
		return st.Usage.ContextWindow
	case c != nil && len(c.Models) > 0:
		best := c.Models[0]
		for _, m := range c.Models {
			if m.Responses > best.Responses {
				best = m
			}
		}
		if pr, ok := p.Lookup(best.Model); ok {
			return pr.Window
		}
	}
	return 0
}
