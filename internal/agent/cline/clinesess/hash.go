package clinesess

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// prefixHash is Cline's hash of a session's first n messages (@cline/core's
// hashCompactionSource, "sha256:<hex>"): "cline-session-compaction-source-v2\n", "<n>\n", then for
// each message the JSON (as JSON.stringify writes it) of its pairs role, content (a user's texts
// normalized: UserInput), agent, sessionId, metadata, modelInfo and metrics (null when absent),
// and a line end.
func prefixHash(msgs []gjson.Result, n int) string {
	h := sha256.New()
	h.Write([]byte("cline-session-compaction-source-v2\n" + strconv.Itoa(n) + "\n"))
	var b strings.Builder
	for _, m := range msgs[:n] {
		b.Reset()
		role := m.Get("role").Str
		b.WriteString(`[["role",`)
		Quote(&b, role)
		b.WriteString(`],["content",`)
		content := m.Get("content")
		switch {
		case role == "user" && content.Type == gjson.String:
			Quote(&b, UserInput(content.Str))
		case role == "user" && content.IsArray():
			b.WriteByte('[')
			for i, p := range content.Array() {
				if i > 0 {
					b.WriteByte(',')
				}
				if p.Get("type").Str == "text" && p.Get("text").Type == gjson.String {
					withText(&b, p, UserInput(p.Get("text").Str))
				} else {
					compact(&b, p.Raw)
				}
			}
			b.WriteByte(']')
		default:
			compact(&b, content.Raw)
		}
		b.WriteByte(']')
		for _, k := range []string{"agent", "sessionId", "metadata", "modelInfo", "metrics"} {
			b.WriteString(`,["` + k + `",`)
			compact(&b, m.Get(k).Raw)
			b.WriteByte(']')
		}
		b.WriteString("]\n")
		h.Write([]byte(b.String()))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// withText writes the object p with its "text" member's value replaced by text.
func withText(b *strings.Builder, p gjson.Result, text string) {
	b.WriteByte('{')
	i := 0
	p.ForEach(func(k, v gjson.Result) bool {
		if i > 0 {
			b.WriteByte(',')
		}
		i++
		Quote(b, k.Str)
		b.WriteByte(':')
		if k.Str == "text" {
			Quote(b, text)
		} else {
			compact(b, v.Raw)
		}
		return true
	})
	b.WriteByte('}')
}

// compact writes a raw JSON value without its whitespace (Cline wrote it with JSON.stringify:
// its strings and numbers are as JSON.stringify writes them); "null" when absent or undefined.
func compact(b *strings.Builder, raw string) {
	var buf bytes.Buffer
	if raw == "" || json.Compact(&buf, []byte(raw)) != nil {
		b.WriteString("null")
		return
	}
	b.Write(buf.Bytes())
}

// Quote writes s as a JSON string as JSON.stringify does: only quotes, backslashes and control
// characters escaped.
func Quote(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte("0123456789abcdef"[r>>4])
				b.WriteByte("0123456789abcdef"[r&15])
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// userTags are the wrappers Cline stores a user's input in: each wrapped text is replaced by what
// it wraps, or, when none closes, each opening tag is removed.
var userTags = []struct{ wrapped, open *regexp.Regexp }{
	{regexp.MustCompile(`<user_input\b[^>]*>([\s\S]*?)</user_input>`), regexp.MustCompile(`<user_input[^>]*>`)},
	{regexp.MustCompile(`<user_command\b[^>]*>([\s\S]*?)</user_command>`), regexp.MustCompile(`<user_command[^>]*>`)},
}

// UserInput is a user's text as Cline sends it and hashes it (@cline/shared's
// normalizeUserInput): trimmed, without the wrappers of its input.
func UserInput(s string) string {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "<user_") {
		return s
	}
	for _, tag := range userTags {
		if u := tag.wrapped.ReplaceAllString(s, "$1"); u != s {
			s = strings.TrimSpace(u)
		} else {
			s = strings.TrimSpace(tag.open.ReplaceAllString(s, ""))
		}
	}
	return s
}
