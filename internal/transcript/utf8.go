package transcript

import (
	"fmt"

	"github.com/ctxc/ctxc/internal/msglist"
)

// CheckUTF8 is what a command that writes messages of the file path says about their invalid
// UTF-8: with strict, a DataError at the line of the first message that has any; otherwise a
// warning (when warn is set) with their count, as WriteMessages writes them as U+FFFD.
func CheckUTF8(path string, ms []Message, strict bool, warn func(Warning)) error {
	n, line := msglist.InvalidUTF8(ms)
	switch {
	case n == 0:
		return nil
	case strict:
		return &DataError{Path: path, Line: line, Msg: "invalid UTF-8 in the message text"}
	case warn != nil:
		warn(Warning{Path: path, Line: line, Msg: fmt.Sprintf("%d byte(s) of invalid UTF-8 in the message text (the first here) written as U+FFFD", n)})
	}
	return nil
}
