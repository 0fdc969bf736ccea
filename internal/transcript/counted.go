package transcript

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
