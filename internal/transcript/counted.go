package transcript

// Counted is one message of a whole history as `ctxc stats` counts it, told to
// Options.Counted as the scan counts it: ctxc export writes a row for each, so that its tables
// add up to the statistics.
type Counted struct {
	Line   int  // the line the message came from (0 when synthesized)
	Role   Role // as stats counts it: a message of tool results only is RoleTool
	Tokens int  // what the message adds to Stats.Tokens
	// Tools are the names of the tool calls the message makes.
	Tools []string
	// Continues: the line is one more part of the response counted just before (Claude Code
	// writes a response's blocks on lines of their own): Tokens add to that message, no new
	// message is counted.
	Continues bool
	// Retracted: the messages counted for Line are taken back (a Gemini CLI record rewritten
	// later in the file); Tokens is then what they had added, negated.
	Retracted bool
	// Sidechain: the message is a subagent's (Claude Code isSidechain): counted only when the
	// file is the subagent's own (Stats.Subagent).
	Sidechain bool
}

// counted tells the caller's Options.Counted of one counted message.
func (st *Stats) TellCounted(c Counted) {
	if st.OnCounted != nil {
		st.OnCounted(c)
	}
}

// toolNames are the names of the tool calls of m.
func ToolNames(m *Message) []string {
	var names []string
	for i := range m.Blocks {
		if b := &m.Blocks[i]; b.Kind == BlockToolCall {
			names = append(names, b.Name)
		}
	}
	return names
}

// ScanCounted scans a whole file as ScanFile does and returns, beside its statistics, the
// messages they count, in file order: one for each message of Stats.Messages, their Tokens
// adding up to Stats.Tokens (the further parts of a response added to it, retracted records
// taken out, a subagent file's sidechain as its conversation).
func ScanCounted(path string, opts Options) (*Result, []Counted, error) {
	var main, side countedList
	opts.Counted = func(c Counted) {
		if c.Sidechain {
			side.add(c)
			return
		}
		main.add(c)
	}
	res, err := ScanFile(path, opts)
	if err != nil {
		return nil, nil, err
	}
	if res.Stats.Subagent {
		return res, side, nil
	}
	return res, main, nil
}

// countedList is the messages counted so far.
type countedList []Counted

func (l *countedList) add(c Counted) {
	switch {
	case c.Continues:
		if i := l.lastOf(func(m *Counted) bool { return m.Role == RoleAssistant }); i >= 0 {
			(*l)[i].Tokens += c.Tokens
			(*l)[i].Tools = append((*l)[i].Tools, c.Tools...)
		}
	case c.Retracted:
		if i := l.lastOf(func(m *Counted) bool { return m.Line == c.Line && m.Role == c.Role }); i >= 0 {
			*l = append((*l)[:i], (*l)[i+1:]...)
		}
	default:
		*l = append(*l, c)
	}
}

// lastOf is the index of the last message that is, or -1.
func (l countedList) lastOf(is func(*Counted) bool) int {
	for i := len(l) - 1; i >= 0; i-- {
		if is(&l[i]) {
			return i
		}
	}
	return -1
}
