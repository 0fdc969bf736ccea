package summarize

import "strings"

// What a token of free text is to the extractive summarizer: a path, a code name, an identifier.

var sepByte = func() (t [256]bool) {
	for c := range t {
		t[c] = isSep(byte(c))
	}
	return t
}()

func isSep(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', '(', ')', '[', ']', '{', '}', '<', '>', ',', ';', '|', '=', '*':
		return true
	}
	return false
}

// knownExt are extensions that make a bare word ("main.go") a file name.
var knownExt = map[string]bool{
	"go": true, "mod": true, "sum": true, "py": true, "js": true, "mjs": true, "cjs": true, "ts": true,
	"tsx": true, "jsx": true, "rs": true, "java": true, "kt": true, "c": true, "h": true, "cc": true,
	"cpp": true, "hpp": true, "cs": true, "rb": true, "php": true, "swift": true, "md": true,
	"txt": true, "json": true, "jsonl": true, "yaml": true, "yml": true, "toml": true, "ini": true,
	"cfg": true, "conf": true, "env": true, "sh": true, "bash": true, "zsh": true, "ps1": true,
	"sql": true, "html": true, "css": true, "scss": true, "xml": true, "csv": true, "tsv": true,
	"lock": true, "proto": true, "tf": true, "gradle": true, "vue": true, "svelte": true, "lua": true,
	"ex": true, "exs": true, "hs": true, "scala": true, "dart": true, "zig": true, "log": true,
	"diff": true, "patch": true, "txtar": true, "tmpl": true, "mk": true, "ipynb": true, "gz": true,
	"zip": true, "tar": true, "db": true, "sqlite": true, "png": true, "jpg": true, "svg": true, "pdf": true,
}

var knownBareFiles = map[string]bool{
	"Makefile": true, "Dockerfile": true, "Containerfile": true, "Justfile": true, "Gemfile": true,
	"Rakefile": true, "Procfile": true, "LICENSE": true, "CLAUDE.md": true, "AGENTS.md": true,
}

// isPath recognizes file paths without a regex: absolute or relative paths with a slash,
// Windows drive paths, and bare names with a known extension.
func isPath(t string) bool {
	if len(t) >= 4 && isASCIILetter(t[0]) && t[1] == ':' && (t[2] == '\\' || t[2] == '/') {
		return validPathChars(t[3:])
	}
	if strings.Contains(t, "//") || !validPathChars(t) {
		return false
	}
	slashes := strings.Count(t, "/") + strings.Count(t, "\\")
	if slashes == 0 {
		return knownBareFiles[t] || (knownExt[ext(t)] && !strings.HasPrefix(t, "."))
	}
	switch {
	case strings.HasPrefix(t, "/") && len(t) > 2, strings.HasPrefix(t, "./"), strings.HasPrefix(t, "../"), strings.HasPrefix(t, "~/"):
		return true
	case ext(t) != "" && !allDigits(ext(t)):
		return true
	case strings.HasSuffix(t, "/"), slashes >= 2:
		return true
	}
	return false
}

// validPathChars: letters (any script), digits, and . _ - ~ @ + / \ ; at least one letter.
func validPathChars(t string) bool {
	letter := false
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case isASCIILetter(c), c >= 0x80:
			letter = true
		case c >= '0' && c <= '9', c == '.', c == '_', c == '-', c == '~', c == '@', c == '+', c == '/', c == '\\':
		default:
			return false
		}
	}
	return letter
}

// ext returns the extension of the last path segment ("" if none or implausible).
func ext(t string) string {
	seg := t[strings.LastIndexAny(t, "/\\")+1:]
	i := strings.LastIndexByte(seg, '.')
	if i <= 0 || i == len(seg)-1 || len(seg)-i-1 > 8 {
		return ""
	}
	x := seg[i+1:]
	for j := 0; j < len(x); j++ {
		if !isASCIILetter(x[j]) && (x[j] < '0' || x[j] > '9') {
			return ""
		}
	}
	return strings.ToLower(x)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func isASCIILetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

func isHex(c byte) bool { return (c >= '0' && c <= '9') || ((c|0x20) >= 'a' && (c|0x20) <= 'f') }

// isCodeName: a name followed by "(" that looks like code (has _ . or inner capitals).
func isCodeName(t string) bool {
	if !isWordChars(t) {
		return false
	}
	return strings.ContainsAny(t, "_.") || innerUpper(t)
}

// isIdentifier recognizes hashes (≥7 hex with a digit and a letter), UUIDs, --flags,
// snake_case/ENV_NAMES, camelCase and dotted names with a capital (pkg.Func).
func isIdentifier(t string) bool {
	if len(t) >= 7 && len(t) <= 64 {
		digit, letter, hex := false, false, true
		for i := 0; i < len(t); i++ {
			c := t[i]
			if !isHex(c) {
				hex = false
				break
			}
			if c <= '9' {
				digit = true
			} else {
				letter = true
			}
		}
		if hex && digit && letter {
			return true
		}
	}
	if len(t) == 36 && t[8] == '-' && t[13] == '-' && t[18] == '-' && t[23] == '-' {
		ok := true
		for i := 0; i < len(t) && ok; i++ {
			ok = t[i] == '-' || isHex(t[i])
		}
		if ok {
			return true
		}
	}
	if strings.HasPrefix(t, "--") && len(t) >= 4 && isASCIILetter(t[2]) {
		return isWordChars(strings.ReplaceAll(t[2:], "-", "_"))
	}
	if !isWordChars(t) || !isASCIILetter(t[0]) && t[0] != '_' {
		return false
	}
	if strings.Contains(t, "_") && strings.Trim(t, "_") == t && len(t) >= 4 {
		return true
	}
	if innerUpper(t) {
		return true
	}
	if i := strings.IndexByte(t, '.'); i > 0 && i+1 < len(t) && t[i+1] >= 'A' && t[i+1] <= 'Z' {
		return true
	}
	return false
}

func isWordChars(t string) bool {
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !isASCIILetter(c) && (c < '0' || c > '9') && c != '_' && c != '.' {
			return false
		}
	}
	return t != "" && !strings.HasSuffix(t, ".") && !strings.HasPrefix(t, ".")
}

// innerUpper: a lowercase letter directly followed by an uppercase one (camelCase, NewOllama).
func innerUpper(t string) bool {
	for i := 1; i < len(t); i++ {
		if t[i] >= 'A' && t[i] <= 'Z' && t[i-1] >= 'a' && t[i-1] <= 'z' {
			return true
		}
	}
	return false
}
