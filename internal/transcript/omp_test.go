package transcript

import (
	"testing"

	"github.com/tidwall/gjson"
)

// omp's title slot line tells an omp session; pi's header alone stays pi's, and a title record
// with an id is not omp's slot.
func TestDetectOmpTitleSlot(t *testing.T) {
	for _, tc := range []struct {
		line   string
		want   Format
		strong bool
	}{
		{`{"type":"title","v":1,"title":"","updatedAt":"2026-11-29T03:21:03.575Z","pad":"   "}`, FormatOmp, true},
		{`{"type":"session","version":3,"id":"s","timestamp":"2026-11-29T03:21:03.575Z","cwd":"/p"}`, FormatPi, true},
		{`{"type":"title","id":"x"}`, FormatUnknown, false},
	} {
		f, strong, err := detectLine(gjson.Parse(tc.line))
		if err != nil || f != tc.want || strong != tc.strong {
			t.Errorf("detectLine(%s) = %q, %v, %v; want %q, %v", tc.line, f, strong, err, tc.want, tc.strong)
		}
	}
}
