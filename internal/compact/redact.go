package compact

import (
	"regexp"
	"strings"
	"sync"

	"github.com/ctxc/ctxc/internal/transcript"
)

// Secret shapes replaced before transcript text leaves the machine (on by default for endpoints
// that are not on loopback; --no-redact turns it off). The list favours well-known token
// prefixes, which almost never match ordinary text, over broad entropy guesses. They are compiled
// on the first redaction: most commands never redact.
var secretPatterns = sync.OnceValue(func() []secretPattern {
	return []secretPattern{
		{"private-key", regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`), 0},
		{"anthropic-key", regexp.MustCompile(`sk-ant-[A-Za-z0-9_\-]{20,}`), 0},
		{"openai-key", regexp.MustCompile(`sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}`), 0},
		{"github-token", regexp.MustCompile(`(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})`), 0},
		{"aws-access-key", regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`), 0},
		{"slack-token", regexp.MustCompile(`xox[abposr]-[A-Za-z0-9-]{10,}`), 0},
		{"google-api-key", regexp.MustCompile(`AIza[0-9A-Za-z_\-]{35}`), 0},
		{"jwt", regexp.MustCompile(`eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`), 0},
		{"bearer-token", regexp.MustCompile(`(?i)(\bbearer\s+)[A-Za-z0-9_\-\.=+/]{16,}`), 1},
		{"url-password", regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]+:)[^\s@/]+(@)`), 1},
		{"secret-assignment", regexp.MustCompile(`(?i)((?:api[_\-]?key|secret|token|passwd|password|access[_\-]?key)["']?\s*[:=]\s*)(?:"[^"\n]{6,}"|'[^'\n]{6,}'|[^\s"',;]{8,})`), 1},
	}
})

// secretPattern is one secret shape and how it is replaced.
type secretPattern struct {
	kind string
	re   *regexp.Regexp
	keep int // submatch to keep in front of the placeholder (0 = none)
}

// Redact replaces secret-looking strings in s and returns how many it replaced.
func Redact(s string) (string, int) {
	n := 0
	for _, p := range secretPatterns() {
		p := p
		s = p.re.ReplaceAllStringFunc(s, func(m string) string {
			if strings.Contains(m, "[REDACTED:") {
				return m // already replaced by a more specific pattern
			}
			n++
			prefix := ""
			if p.keep > 0 {
				sub := p.re.FindStringSubmatch(m)
				if len(sub) > p.keep {
					prefix = sub[p.keep]
				}
			}
			suffix := ""
			if p.kind == "url-password" {
				suffix = "@"
			}
			return prefix + "[REDACTED:" + p.kind + "]" + suffix
		})
	}
	return s, n
}

// RedactItems redacts every item's text in place and returns the number of replacements.
func RedactItems(items []transcript.Item) int {
	total := 0
	for i := range items {
		var n int
		items[i].Text, n = Redact(items[i].Text)
		total += n
		items[i].Tail, n = Redact(items[i].Tail)
		total += n
	}
	return total
}
