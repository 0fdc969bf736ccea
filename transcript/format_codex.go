package transcript

import "github.com/tidwall/gjson"

// codexReader: placeholder being replaced by the real reader.
type codexReader struct{ g *genericReader }

func newCodexReader() *codexReader { return &codexReader{g: newGenericReader(FormatCodex)} }

func (r *codexReader) add(l *Line, doc gjson.Result, st *Stats)       {}
func (r *codexReader) finish(st *Stats) []ref                         { st.Format = FormatCodex; return nil }
func (r *codexReader) materialize(b []byte, x ref) ([]Message, error) { return nil, nil }
