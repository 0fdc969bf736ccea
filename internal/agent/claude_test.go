package agent

import "testing"

// TestClaudeProjectDir checks the folder name of a working directory against Claude Code's rule:
// every character but an ASCII letter or digit becomes one "-" (a multi-byte character too).
func TestClaudeProjectDir(t *testing.T) {
	for _, tc := range []struct{ cwd, want string }{
		{"/home/me/proj", "-home-me-proj"},
		{"/tmp/a_b.c d", "-tmp-a-b-c-d"},
		{"/srv/Proj42", "-srv-Proj42"},
		{"/home/é/日本", "-home-----"},
		{"/x/\xff", "-x--"},
		{"", ""},
	} {
		if got := ClaudeProjectDir(tc.cwd); got != tc.want {
			t.Errorf("ClaudeProjectDir(%q) = %q, want %q", tc.cwd, got, tc.want)
		}
	}
}
