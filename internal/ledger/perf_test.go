package ledger

import (
	"fmt"
	"github.com/ctxc/ctxc/internal/transcript"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/estimate"
)

// TestLargeInputs: a hostile earlier summary with 5,000 facts and a 500 KB user message are
// handled in bounded time and the audit stays within target.
func TestLargeInputs(t *testing.T) {
	var sum strings.Builder
	sum.WriteString("## Files modified\n")
	for i := range 5000 {
		fmt.Fprintf(&sum, "- `dir%d/file%d.go`\n", i%97, i)
	}
	sum.WriteString("## User rules\n")
	for i := range 2000 {
		fmt.Fprintf(&sum, "- \"never do thing number %d\"\n", i)
	}
	big := strings.Repeat("You must always log. Here is a pasted log line with v1.2.3 and https://x.example/a. ", 6000)
	items := []transcript.Item{{Role: "user", Kind: "summary", Text: sum.String()}, {Role: "user", Kind: "text", Text: big}}
	start := time.Now()
	l := Build(items, Options{})
	out, rep := Audit(sum.String(), l, 2000)
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v", d)
	}
	if estimate.Tokens(out) > 2000 || rep.Facts != l.Len() || rep.Dropped == 0 {
		t.Errorf("%d tokens, %+v", estimate.Tokens(out), rep.Counts)
	}
	if n := len(l.ByCat[Modified]); n != 5000 {
		t.Errorf("%d modified", n)
	}
}
