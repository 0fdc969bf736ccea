package transcript

import (
	"testing"

	"github.com/tidwall/gjson"
)

// TestAiderDetected: the export's records are Aider's, from the first line.
func TestAiderDetected(t *testing.T) {
	f, strong, err := detectLine(gjson.Parse(`{"type":"aider","started":"2024-08-05 19:33:02","session":1,"line":2}`))
	if f != FormatAider || !strong || err != nil {
		t.Errorf("detected %q %v %v", f, strong, err)
	}
}
