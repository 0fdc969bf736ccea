package agentcheck

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestMain says, once the tests ran, how many agent tests were skipped (Counted).
func TestMain(m *testing.M) { os.Exit(Counted(m).Run()) }

// TestSkippedNotice: skipped agent tests are counted in one line that says why and where to
// read how to install the agents; none skipped, nothing is said.
func TestSkippedNotice(t *testing.T) {
	var b bytes.Buffer
	printSkipped(&b, 0)
	if b.Len() != 0 {
		t.Errorf("a notice without a skip: %q", b.String())
	}
	printSkipped(&b, 14)
	if got := b.String(); !strings.HasPrefix(got, "ctxc: 14 agent tests skipped: ") || !strings.Contains(got, "see README") ||
		strings.Count(got, "\n") != 1 {
		t.Errorf("notice %q", got)
	}
}
