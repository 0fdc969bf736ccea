package transcript

import "github.com/tidwall/gjson"

// claudeReader: placeholder being replaced by the real reader.
type claudeReader struct{ g *genericReader }

func newClaudeReader() *claudeReader { return &claudeReader{g: newGenericReader(FormatClaude)} }

func (r *claudeReader) add(l *Line, doc gjson.Result, st *Stats)       {}
func (r *claudeReader) finish(st *Stats) []ref                         { st.Format = FormatClaude; return nil }
func (r *claudeReader) materialize(b []byte, x ref) ([]Message, error) { return nil, nil }
