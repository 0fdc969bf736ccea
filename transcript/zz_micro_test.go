package transcript

import (
	"encoding/json"
	"strings"
	"testing"
)

var microStr = func() string {
	b, _ := json.Marshal(strings.Repeat("     1\tfunc error(ctx context.Context) error {\n2025-06-01T12:00:00Z INFO request id=0a0b0c0d path=\"/api/run\" status=200 dur=12ms\n", 2000))
	return string(b)
}()

func BenchmarkJSONStringChars(b *testing.B) {
	b.SetBytes(int64(len(microStr)))
	for i := 0; i < b.N; i++ {
		jsonStringChars(microStr[1 : len(microStr)-1])
	}
}
