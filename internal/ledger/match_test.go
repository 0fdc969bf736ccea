package ledger

import "testing"

// TestMatch: facts as people write them are found, each with how; what a careful reader rejects
// (a negation dropped, a base name two files share, a URL with another path) is not, and
// --strict finds only the verbatim.
func TestMatch(t *testing.T) {
	const root = "/Users/dev/src/slopometry/"
	files := []string{root + "src/slopometry/core/plan_analyzer.py", root + "tests/test_save_transcript.py",
		root + "README.md", root + "src/a/util.py", root + "src/b/util.py", `C:\work\app\main.go`, "~/notes/todo.md", "src/rel.go"}
	tests := []struct {
		name string
		cat  Category
		fact string
		text string
		want How
	}{
		{"full path", Modified, files[0], "Changed " + files[0] + ".", Verbatim},
		{"path in the project", Modified, files[1], "Added tests in `tests/test_save_transcript.py`.", Relative},
		{"partial path", Modified, files[0], "see core/plan_analyzer.py:42", Relative},
		{"base name", Modified, files[0], "- plan_analyzer.py: new scoring", Name},
		{"base name of a doc", Modified, files[2], "Updated README.md with the new flags", Name},
		{"shared base name", Modified, files[3], "Fixed util.py", Missing},
		{"shared base name, path given", Modified, files[3], "Fixed a/util.py", Relative},
		{"windows path with slashes", Modified, files[5], "edited C:/work/app/main.go", Relative},
		{"windows path relative", Modified, files[5], "edited app\\main.go", Relative},
		{"tilde fact, absolute text", Modified, files[6], "wrote /home/dev/notes/todo.md", Relative},
		{"relative fact, absolute text", Modified, files[7], "wrote /home/dev/proj/src/rel.go", Verbatim},
		{"name inside another name", Modified, files[7], "see src/prel.go", Missing},
		{"word, not a name", Modified, "/p/Makefile", "the makefile was changed", Missing},
		{"url verbatim", Ref, "https://github.com/ctxc/ctxc/pull/12", "See https://github.com/ctxc/ctxc/pull/12.", Verbatim},
		{"url scheme-less", Ref, "https://github.com/ctxc/ctxc/pull/12", "PR github.com/ctxc/ctxc/pull/12 merged", SameRef},
		{"url fragment", Ref, "https://docs.example.com/guide#install", "read https://docs.example.com/guide", SameRef},
		{"url trailing slash, utm", Ref, "https://example.com/a/?utm_source=x", "https://example.com/a", SameRef},
		{"url another path", Ref, "https://github.com/ctxc/ctxc/pull/12", "see https://github.com/ctxc/ctxc/pull/123 and https://github.com/ctxc/ctxc", Missing},
		{"url another query", Ref, "https://example.com/item?id=1", "https://example.com/item?id=2", Missing},
		{"short hash", Ref, "5110908f3c2a9d1e", "reverted 5110908", SameRef},
		{"version with v", Ref, "v1.2.3", "upgraded to 1.2.3", SameRef},
		{"version is not its prefix", Ref, "1.2", "upgraded to 1.2.3", Missing},
		{"rule verbatim", Rule, "Never push to main.", "- \"Never push to main.\"", Verbatim},
		{"rule restated", Rule, "Never push to main.", "The user does not want pushes to main.", Restated},
		{"rule negation lost", Rule, "Never push to main.", "Push to main when done.", Missing},
		{"rule number changed", Rule, "Keep lines under 100 characters.", "Keep lines under 120 characters.", Missing},
		{"rule number kept", Rule, "Keep lines under 100 characters.", "Lines must stay under 100 characters.", Restated},
		{"rule with contrast", Rule, "Use pnpm, not npm.", "Use pnpm instead of npm.", Restated},
		{"request restated", LastRequest, "Commit it as two commits: TTL first, then the janitor.", "The user asked for two commits: the TTL, then the janitor.", Restated},
		{"request not there", LastRequest, "Commit it as two commits: TTL first, then the janitor.", "Work on the cache continued.", Missing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &Ledger{}
			l.ByCat[Modified] = files
			if tt.cat != Modified {
				l.ByCat[tt.cat] = append(l.ByCat[tt.cat], tt.fact)
			}
			i := len(l.ByCat[tt.cat]) - 1
			if tt.cat == Modified {
				i = -1
				for j, f := range files {
					if f == tt.fact {
						i = j
					}
				}
				if i < 0 {
					l.ByCat[Modified] = append(append([]string{}, files...), tt.fact)
					i = len(files)
				}
			}
			if got := Match(tt.text, l, MatchOptions{})[tt.cat][i]; got != tt.want {
				t.Errorf("Match(%q) for %s %q = %s, want %s", tt.text, tt.cat, tt.fact, got, tt.want)
			}
			strict := Match(tt.text, l, MatchOptions{Strict: true})[tt.cat][i]
			if (strict == Verbatim) != (tt.want == Verbatim) && tt.want != Missing {
				t.Errorf("strict: %s, want verbatim only when the default is verbatim", strict)
			}
		})
	}
}
