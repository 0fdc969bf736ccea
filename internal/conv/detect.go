package conv

// Wrapper is a fixed text a format's reader puts around what a line holds when it builds a
// message (the agent's own framing of a summary it sends to the model): no line's raw bytes
// hold it. After and Before say whether text from the line can follow it or come before it.
type Wrapper struct {
	Text          string
	Before, After bool
}

// Head is a wrapper the line's text follows, Tail one it comes before, Mid one between two
// texts of the line, Fixed one that stands alone.
func Head(t string) Wrapper  { return Wrapper{Text: t, After: true} }
func Tail(t string) Wrapper  { return Wrapper{Text: t, Before: true} }
func Mid(t string) Wrapper   { return Wrapper{Text: t, Before: true, After: true} }
func Fixed(t string) Wrapper { return Wrapper{Text: t} }

// LineType tells a format's line by its "type" member: the header line of a session ctxc
// exports from an agent's store or document, or a record type only that agent writes.
type LineType struct {
	Type string
	// Session: the line also has a "sessionId" (an export's header); NoID: it has no "id";
	// Message: it has a "message" object.
	Session, NoID, Message bool
	// Weak: the line alone does not decide the format (a later line may).
	Weak bool
}
