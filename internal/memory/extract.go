package memory

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/ledger"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/tidwall/gjson"
)

// lazyRegexp returns a function that compiles expr on its first call and then returns the same
// *regexp.Regexp: a command that never needs the expression does not pay for it at start.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Limits of what one observation keeps.
const (
	maxSentence = 400 // characters of a rule, constraint or decision (longer: middle elided)
	maxCommand  = 200 // characters of a command (longer ones are scripts, not conventions)
	minWords    = 3   // a shorter sentence ("no, don't") says nothing on its own
)

// observation is one thing seen on one line.
type observation struct {
	kind Kind
	text string
	line int
	time time.Time
}

// ReadOptions say how session files are read.
type ReadOptions struct {
	Format  transcript.Format // forced format; FormatUnknown detects
	MaxLine int               // line cap (0: the transcript default)
}

// fileObservations reads one session file, whole history (what compactions replaced too).
func fileObservations(path string, o ReadOptions) ([]observation, int64, error) {
	f, err := transcript.OpenFile(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	info := f.Info()
	topts := transcript.Options{Format: o.Format, MaxLine: o.MaxLine}
	format, err := transcript.Detect(f, path, topts)
	if err != nil {
		return nil, 0, err
	}
	if format == transcript.FormatUnknown {
		return nil, 0, &transcript.DataError{Path: path, Line: 1, Msg: "not a transcript (no message records found)"}
	}
	if err := f.Rewind(); err != nil {
		return nil, 0, err
	}
	text := &countReader{r: io.Reader(f)}
	if f.Plain() != nil {
		text.r = io.LimitReader(f, info.Size()) // what the file held when it was opened
	}
	lr := jsonl.NewLineReader(text)
	if o.MaxLine > 0 {
		lr.SetMaxLine(o.MaxLine)
	}
	var obs []observation
	for {
		l, err := lr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", path, err)
		}
		rec, ok := transcript.DecodeRecordTransient(format, l.Bytes, l.Num)
		if !ok {
			continue // lint reports invalid lines; memory reads what it can
		}
		n := len(obs)
		obs = appendRecord(obs, &rec)
		if len(obs) > n {
			t := lineTime(l.Bytes, info.ModTime())
			for i := n; i < len(obs); i++ {
				obs[i].line, obs[i].time = l.Num, t
			}
		}
	}
	if f.Plain() == nil {
		return obs, text.n, nil // the session's bytes, as the plain file would count them
	}
	return obs, info.Size(), nil
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// appendRecord appends the observations of one decoded line. Text is copied: the record's
// strings point into the line.
func appendRecord(obs []observation, rec *transcript.Record) []observation {
	if rec.Sidechain {
		return obs // a subagent's prompt is the main agent's text, not the user's
	}
	for i := range rec.Messages {
		m := &rec.Messages[i]
		if m.Summary {
			continue // a summary repeats what earlier lines said
		}
		for _, b := range m.Blocks {
			switch {
			case b.Kind == transcript.BlockText && m.Role == transcript.RoleUser:
				obs = userText(obs, b.Text)
			case b.Kind == transcript.BlockText && m.Role == transcript.RoleAssistant:
				obs = decisions(obs, b.Text)
			case b.Kind == transcript.BlockToolCall:
				obs = toolCall(obs, b.Name, b.Args)
			}
		}
	}
	return obs
}

// userText: the rules, constraints and decisions of what the user typed.
func userText(obs []observation, text string) []observation {
	if !ledger.Typed(text) {
		return obs
	}
	rules := ledger.RuleSentences(text, maxSentence)
	for _, s := range rules {
		if !durable(s) {
			continue
		}
		k := Rule
		if prohibition().MatchString(s) {
			k = Constraint
		}
		obs = append(obs, observation{kind: k, text: strings.Clone(s)})
	}
	if len(rules) == 0 {
		obs = decisions(obs, text)
	}
	return obs
}

var (
	// prohibition marks a rule that forbids: a constraint.
	prohibition = lazyRegexp(`(?i)\b(never|mustn'?t|must not|shouldn'?t|should not|not allowed|forbidden|avoid)\b|(?:^|[.!?,;:]\s*)(?:please\s+)?(don'?t|do not|stop)\b`)
	// decisionCue and reasonCue: a decision is a sentence with both.
	decisionCue = lazyRegexp(`(?i)\b(decided|decide to|decision|we'?ll (?:use|go with|keep|switch to|stick with)|let'?s (?:use|go with|keep|switch to|stick with)|going with|settled on|opted (?:for|to)|chose|chosen|switch(?:ed)? to|stick with)\b`)
	reasonCue   = lazyRegexp(`(?i)\b(because|since|so that|due to|to avoid|given that|as it|which means)\b`)
)

// decisions: the sentences of a text that take a decision and give its reason.
func decisions(obs []observation, text string) []observation {
	if !decisionCue().MatchString(text) || !reasonCue().MatchString(text) {
		return obs
	}
	for _, s := range ledger.Sentences(text) {
		if decisionCue().MatchString(s) && reasonCue().MatchString(s) && durable(s) && len([]rune(s)) <= maxSentence {
			obs = append(obs, observation{kind: Decision, text: strings.Clone(s)})
		}
	}
	return obs
}

// durable reports whether a sentence says something on its own: not a question, and with at
// least minWords words of which one is a content word.
func durable(s string) bool {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "?") {
		return false
	}
	words := strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) })
	return len(words) >= minWords && len(terms(s)) > 0
}

// toolCall: the files a call changes and the build and test commands it runs.
func toolCall(obs []observation, name, args string) []observation {
	for _, p := range ledger.ChangedFiles(name, args) {
		obs = append(obs, observation{kind: File, text: strings.Clone(p)})
	}
	if script, ok := ledger.ShellScript(name, args); ok {
		for _, c := range buildCommands(script) {
			obs = append(obs, observation{kind: Command, text: c})
		}
	}
	return obs
}

var (
	// buildTool opens a command that builds, tests or checks a project.
	buildTool = lazyRegexp(`^(?:go (?:test|build|vet|generate|install)|gofmt|staticcheck|golangci-lint|make|just|ninja|cmake|bazel|cargo (?:build|test|check|clippy|fmt)|(?:npm|pnpm|yarn|bun) (?:test|run|ci|install|build|lint)|npx (?:jest|vitest|tsc|eslint|prettier|playwright)|deno (?:test|lint|check)|pytest|python3? -m (?:pytest|unittest|mypy)|tox|nox|ruff|mypy|uv run|poetry run|mvn|gradle|\./gradlew|dotnet (?:build|test)|bundle exec|rake|mix (?:test|compile)|tsc|eslint|vitest|jest)\b`)
	// separators split a script into commands.
	separators = lazyRegexp(`&&|\|\||[;|\n]`)
	// redirect is an output redirection, left out of a command's text.
	redirect = lazyRegexp(`\s+\d*(?:>>?|<)&?\s*\S+`)
	// testFilter selects tests by name: a run of one test is a run of the project's tests.
	testFilter = lazyRegexp(`\s+(?:-run|-k|-t|--grep|--testNamePattern|--filter)(?:=|\s+)(?:'[^']*'|"[^"]*"|[^\s'"]+)+(?:\s+|$)`)
	// wrapper opens a command with an environment assignment or a timing wrapper.
	wrapper = lazyRegexp(`^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+|timeout\s+\S+\s+|time\s+|env\s+)+`)
)

// buildCommands lists the commands of a script that build, test or check, as a user would type
// them: without environment assignments, timing wrappers, redirections and test name filters.
func buildCommands(script string) []string {
	var out []string
	for _, part := range separators().Split(script, -1) {
		c := strings.TrimSpace(part)
		c = wrapper().ReplaceAllString(c, "")
		c = testFilter().ReplaceAllString(redirect().ReplaceAllString(c, ""), " ")
		c = strings.Join(strings.Fields(c), " ")
		if c == "" || len(c) > maxCommand || !buildTool().MatchString(c) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// timeKeys are where records keep their time: Claude Code, Codex, pi and most generic logs.
var timeKeys = []string{"timestamp", "time", "created_at", "ts"}

// lineTime is the time a record was written: its timestamp, else the file's modification time.
func lineTime(line []byte, mtime time.Time) time.Time {
	for _, k := range timeKeys {
		v := gjson.GetBytes(line, k)
		switch v.Type {
		case gjson.String:
			if t, err := time.Parse(time.RFC3339Nano, v.Str); err == nil {
				return t.UTC()
			}
		case gjson.Number:
			n := v.Int()
			switch {
			case n > 1e12: // milliseconds
				return time.UnixMilli(n).UTC()
			case n > 1e9:
				return time.Unix(n, 0).UTC()
			}
		}
	}
	return mtime.UTC()
}
