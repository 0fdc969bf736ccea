package transcript

import "github.com/tidwall/gjson"

// piReader: placeholder being replaced by the real reader.
type piReader struct{ g *genericReader }

func newPiReader() *piReader { return &piReader{g: newGenericReader(FormatPi)} }

func (r *piReader) add(l *Line, doc gjson.Result, st *Stats)       {}
func (r *piReader) finish(st *Stats) []ref                         { st.Format = FormatPi; return nil }
func (r *piReader) materialize(b []byte, x ref) ([]Message, error) { return nil, nil }
