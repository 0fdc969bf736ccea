package omp

import (
	"strings"

	"github.com/ctxc/ctxc/internal/agent/pi"
	"github.com/ctxc/ctxc/internal/conv"
)

// Writer writes a compaction into an omp session as pi's writer does (omp keeps pi's
// compaction entry: summary, firstKeptEntryId, tokensBefore), which omp resumes with its own
// summary wrapper. A new file (-o) is pi's new v3 session after omp's title slot line, so that
// it reads as omp's.
type Writer struct{}

func (Writer) Append(src *conv.Source, c *conv.Compaction, late [][]byte) (conv.Written, error) {
	return pi.Writer{}.Append(src, c, late)
}

func (Writer) New(src *conv.Source, c *conv.Compaction) (conv.Written, error) {
	w, err := pi.Writer{}.New(src, c)
	if err != nil {
		return w, err
	}
	w.Data = append(TitleSlot(c), w.Data...)
	w.Resume = conv.ResumeHint(conv.FormatOmp, "")
	return w, nil
}

// TitleSlotBytes is the length of omp's title slot line, its line end included
// (SESSION_TITLE_SLOT_BYTES): omp rewrites the title in place within it.
const TitleSlotBytes = 256

// TitleSlot is an empty title slot line as omp writes it at the top of a new session.
func TitleSlot(c *conv.Compaction) []byte {
	o := conv.NewObject()
	o.Set("type", HeaderType)
	o.Set("v", 1)
	o.Set("title", "")
	o.Set("updatedAt", conv.RFC3339ms(c.Now))
	o.Set("pad", "")
	line := o.Encode()
	pad := max(TitleSlotBytes-1-len(line), 0)
	return []byte(strings.Replace(string(line), `"pad":""`, `"pad":"`+strings.Repeat(" ", pad)+`"`, 1) + "\n")
}
