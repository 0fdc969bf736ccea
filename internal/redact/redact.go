// Package redact finds secrets in the text of sessions (API keys, tokens, private key blocks,
// passwords in URLs and assignments, connection strings) and replaces each with a typed
// placeholder that names its kind and a short hash of it: [REDACTED:aws-access-key:3f9a1c]. The
// same secret gets the same placeholder everywhere, so a team can still tell that two sessions
// used one key without reading it. ctxc export redacts the text it writes; ctxc archive --redact
// the JSON string values of the lines it archives (JSONLine), keeping every line valid JSON.
//
// The package imports neither cobra nor viper.
package redact

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"sync"
)

// Kind is one kind of secret: its name in the placeholder, what it matches, and the pattern.
type Kind struct {
	Name    string // in the placeholder: [REDACTED:Name:hash]
	Matches string // what it finds, for the documentation
	Pattern string // the regular expression (RE2)
	// Group is the submatch that is the secret (0: the whole match): the rest (a key's name, a
	// URL's user) stays.
	Group int
	// Hints are strings one of which any match holds (compared in lower case): a text that holds
	// none is not searched with Pattern.
	Hints []string
}

// kinds are the secrets found, in the order they are replaced: a kind whose matches another
// kind's pattern would also take comes first (Anthropic's sk-ant- before OpenAI's sk-).
var kinds = []Kind{
	{Name: "private-key", Matches: "a PEM private key block (RSA, EC, OpenSSH, PKCS#8...)",
		Pattern: `-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----`, Hints: []string{"private key-----"}},
	{Name: "anthropic-key", Matches: "Anthropic API keys: sk-ant-…",
		Pattern: `sk-ant-[A-Za-z0-9_-]{20,}`, Hints: []string{"sk-ant-"}},
	{Name: "openai-key", Matches: "OpenAI API keys: sk-…, sk-proj-…, sk-svcacct-…",
		Pattern: `\bsk-[A-Za-z0-9_-]{20,}`, Hints: []string{"sk-"}},
	{Name: "aws-access-key", Matches: "AWS access key ids: AKIA… and ASIA… (20 characters)",
		Pattern: `\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`, Hints: []string{"akia", "asia"}},
	{Name: "aws-secret-key", Matches: "AWS secret access keys: 40 characters after aws_secret_access_key (any case, = or :)",
		Pattern: `(?i)aws_?secret_?(?:access_?)?key[\s"'\\]*[:=][\s"'\\]*([A-Za-z0-9/+]{40})\b`, Group: 1, Hints: []string{"secret"}},
	{Name: "github-token", Matches: "GitHub tokens: ghp_, gho_, ghu_, ghs_, ghr_ and github_pat_",
		Pattern: `\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})`, Hints: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}},
	{Name: "slack-token", Matches: "Slack tokens: xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxo-",
		Pattern: `\bxox[abposr]-[A-Za-z0-9-]{10,}`, Hints: []string{"xox"}},
	{Name: "google-api-key", Matches: "Google API keys: AIza followed by 35 characters",
		Pattern: `\bAIza[0-9A-Za-z_-]{35}`, Hints: []string{"aiza"}},
	{Name: "bearer-token", Matches: "a token after Bearer (an Authorization header), 16 characters or more",
		Pattern: `(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)`, Group: 1, Hints: []string{"bearer"}},
	{Name: "url-password", Matches: "the password of a URL: scheme://user:PASSWORD@host (database URLs included)",
		Pattern: `\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@"'\\]+:([^/\s@"'\\\[][^/\s@"'\\]*)@`, Group: 1, Hints: []string{"://"}},
	{Name: "connection-string", Matches: "keys of connection strings: AccountKey=, SharedAccessKey=, SharedAccessSignature=",
		Pattern: `(?i)\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)\s*=\s*([^;\s"'\\]+)`, Group: 1, Hints: []string{"accountkey", "sharedaccess"}},
	{Name: "password", Matches: "the value of password=, passwd=, pwd= (or with :), in any case",
		Pattern: `(?i)\b(?:password|passwd|pwd)[\s"'\\]*[:=][\s"'\\]*([^\s"'\\&;,\[][^\s"'\\&;,]*)`, Group: 1, Hints: []string{"passw", "pwd"}},
}

// Kinds are the kinds of secret redacted, in the order they are replaced.
func Kinds() []Kind { return append([]Kind(nil), kinds...) }

// compiled are the kinds' patterns, compiled on first use.
var compiled = sync.OnceValue(func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(kinds))
	for i, k := range kinds {
		out[i] = regexp.MustCompile(k.Pattern)
	}
	return out
})

// placeholders matches the placeholders already in a text: what they hold is never a secret.
var placeholders = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\[REDACTED:[a-z-]+:[0-9a-f]{6}\]`)
})

// hashLen is how many hex digits of the secret's SHA-256 the placeholder shows.
const hashLen = 6

// Placeholder is what replaces secret, a secret of the given kind.
func Placeholder(kind, secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return "[REDACTED:" + kind + ":" + hex.EncodeToString(sum[:])[:hashLen] + "]"
}

// String returns s with every secret replaced by its placeholder, and how many were.
func String(s string) (string, int) {
	if s == "" {
		return s, 0
	}
	lower := ""
	total := 0
	for i, k := range kinds {
		if lower == "" {
			lower = strings.ToLower(s)
		}
		if !hinted(lower, k.Hints) {
			continue
		}
		out, n := replace(compiled()[i], k, s)
		if n > 0 {
			s, lower, total = out, "", total+n
		}
	}
	return s, total
}

// hinted reports whether text holds one of the hints.
func hinted(lower string, hints []string) bool {
	for _, h := range hints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return false
}

// replace replaces k's secrets in s.
func replace(re *regexp.Regexp, k Kind, s string) (string, int) {
	found := re.FindAllStringSubmatchIndex(s, -1)
	if len(found) == 0 {
		return s, 0
	}
	kept := placeholders().FindAllStringIndex(s, -1)
	var b strings.Builder
	b.Grow(len(s))
	last, n := 0, 0
	for _, m := range found {
		start, end := m[2*k.Group], m[2*k.Group+1]
		if start < 0 || overlaps(kept, start, end) {
			continue
		}
		n++
		b.WriteString(s[last:start])
		b.WriteString(Placeholder(k.Name, s[start:end]))
		last = end
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}

// overlaps reports whether [start, end) overlaps one of the spans.
func overlaps(spans [][]int, start, end int) bool {
	for _, sp := range spans {
		if start < sp[1] && sp[0] < end {
			return true
		}
	}
	return false
}
