package prose

import (
	"strings"
	"testing"
)

// TestLine: the lines a user writes are prose; what they paste is not.
func TestLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		own  bool
	}{
		{"always use the staging database", true},
		{"Never push to main without a review.", true},
		{"No mocks in tests, please.", true},
		{"use `go test ./...` before every commit", true},
		{"- keep the public API stable", true},
		{"## Notes", true},
		{"[the design doc](https://example.com/design) says so", true},
		{"don't touch config.yaml (it is generated)", true},
		{`"}],"isError":false`, false},
		{`{"type":"text","text":"hi"}`, false},
		{`  "name": "ctxc",`, false},
		{"Error: ENOENT: no such file or directory, open '/app/x.json'", false},
		{"TypeError: Cannot read properties of undefined (reading 'map')", false},
		{"    at Object.openSync (node:fs:596:3)", false},
		{"at Module._compile (node:internal/modules/cjs/loader:1256:14)", false},
		{`  File "/app/main.py", line 12, in <module>`, false},
		{"Traceback (most recent call last):", false},
		{"goroutine 1 [running]:", false},
		{"panic: runtime error: index out of range [3] with length 3", false},
		{"\tmain.main()", false},
		{"2026-01-02T03:04:05Z ERROR handlers/login.go:42: nil pointer", false},
		{"[12:01:33] Starting compilation in watch mode...", false},
		{"INFO  server listening on :8080", false},
		{"src/app.ts:12:5 - error TS2322: Type 'string' is not assignable", false},
		{"error[E0382]: borrow of moved value: `v`", false},
		{"npm ERR! code ELIFECYCLE", false},
		{"> biome check --write . && tsgo --noEmit", false},
		{"$ npm run check", false},
		{"✓ parses the header (3 ms)", false},
		{"@@ -1,4 +1,5 @@", false},
		{"if (x == null) { return []; }", false},
	} {
		if got := Line(tc.line); got != tc.own {
			t.Errorf("Line(%q) = %v, want %v", tc.line, got, tc.own)
		}
	}
}

// TestOwn: a user's message with pasted output keeps the user's lines; code blocks and pastes
// of output are left out, plain-looking output lines ("No fixes applied.") with them.
func TestOwn(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"prose only", "always run gofmt.\nNever commit generated files.", "always run gofmt.\nNever commit generated files."},
		{"a code block", "use this shape:\n```go\nfunc f() error { return nil } // always\n```\nand keep it short", "use this shape:\nand keep it short"},
		{"a stack trace under a request", "the build breaks, fix it\nError: ENOENT: no such file or directory\n    at Object.openSync (node:fs:596:3)\n    at main (/app/index.js:3:1)",
			"the build breaks, fix it"},
		{"a pasted tool run", "> pi-tui@0.8.0 check\n> biome check --write . && tsgo --noEmit\n\nDebugger attached.\nChecked 22 files in 17ms. No fixes applied.\nWaiting for the debugger to disconnect...", ""},
		{"one JSON fragment in prose", "the result was\n\"}],\"isError\":false\nso never trust isError there", "the result was\nso never trust isError there"},
	} {
		if got := strings.TrimSpace(Own(tc.text)); got != tc.want {
			t.Errorf("%s: Own = %q, want %q", tc.name, got, tc.want)
		}
		if b := Blank(tc.text); len(b) != len(tc.text) || strings.Count(b, "\n") != strings.Count(tc.text, "\n") {
			t.Errorf("%s: Blank changed offsets: %q", tc.name, b)
		}
	}
}
