package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// session writes a Claude Code session: each turn is a user text, or a Bash tool call when it
// starts with "$ ", or an Edit tool call when it starts with "edit ". Turn i is at start + i
// minutes. It returns the file's path.
func session(t *testing.T, dir, id string, start time.Time, turns ...string) string {
	t.Helper()
	var b bytes.Buffer
	parent := ""
	for i, turn := range turns {
		uuid := fmt.Sprintf("%s-%04d", id, i)
		ts := start.Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
		var rec map[string]any
		switch {
		case strings.HasPrefix(turn, "$ "):
			rec = map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "id": "m" + uuid,
				"content": []any{map[string]any{"type": "tool_use", "id": "t" + uuid, "name": "Bash", "input": map[string]any{"command": turn[2:]}}}}}
		case strings.HasPrefix(turn, "edit "):
			rec = map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "id": "m" + uuid,
				"content": []any{map[string]any{"type": "tool_use", "id": "t" + uuid, "name": "Edit", "input": map[string]any{"file_path": turn[5:], "old_string": "a", "new_string": "b"}}}}}
		case strings.HasPrefix(turn, "agent: "):
			rec = map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "id": "m" + uuid,
				"content": []any{map[string]any{"type": "text", "text": turn[7:]}}}}
		default:
			rec = map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": turn}}
		}
		rec["uuid"], rec["sessionId"], rec["timestamp"], rec["cwd"] = uuid, id, ts, "/home/dev/app"
		if parent != "" {
			rec["parentUuid"] = parent
		} else {
			rec["parentUuid"] = nil
		}
		parent = uuid
		line, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	p := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var day = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

func find(es []Entry, k Kind, text string) *Entry {
	for i := range es {
		if es[i].Kind == k && es[i].key == entryKey(k, text) {
			return &es[i]
		}
	}
	return nil
}

func TestUserTextKinds(t *testing.T) {
	tests := []struct {
		text string
		want []string // "kind: text"
	}{
		{"Always run the tests with -race.", []string{"rule: Always run the tests with -race."}},
		{"Never push to master. Fix the flaky test in cache_test.go.", []string{"constraint: Never push to master."}},
		{"Please don't touch the generated files in api/gen.", []string{"constraint: Please don't touch the generated files in api/gen."}},
		{"Stop using fmt.Println for logging, use slog.", []string{"constraint: Stop using fmt.Println for logging, use slog."}},
		{"Use pnpm, not npm, for installs.", []string{"rule: Use pnpm, not npm, for installs."}},
		{"We'll use SQLite because it needs no server.", []string{"decision: We'll use SQLite because it needs no server."}},
		{"Should we always use tabs?", nil},                   // a question
		{"no, don't", nil},                                    // nothing on its own
		{"Fix the bug in the parser.", nil},                   // a request, not a rule
		{"<command-name>/compact</command-name> always", nil}, // the harness wrote it
		{"I don't understand why it fails on Linux.", nil},    // "don't" inside a sentence
		{"Keep the public API stable\nalways add a changelog entry", []string{"rule: Keep the public API stable", "rule: always add a changelog entry"}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			var got []string
			for _, ob := range userText(nil, tt.text) {
				got = append(got, ob.kind.String()+": "+ob.text)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("userText(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestDecisionsOfTheAgent(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"I decided to keep the cache in memory because the data set is small.", 1},
		{"Let's go with a ring buffer since it bounds memory. Then I will write the tests.", 1},
		{"I'll use grep to find it.", 0},             // no decision cue, no reason
		{"We decided on the name.", 0},               // no reason
		{"Because the build failed, I reran it.", 0}, // no decision
	}
	for _, tt := range tests {
		if got := decisions(nil, tt.text); len(got) != tt.want {
			t.Errorf("decisions(%q) = %d entries, want %d", tt.text, len(got), tt.want)
		}
	}
}

func TestBuildCommands(t *testing.T) {
	tests := []struct {
		script string
		want   []string
	}{
		{"go test -race ./...", []string{"go test -race ./..."}},
		{"cd /home/dev/app && go test ./... -run TestCache 2>&1 | tail -20", []string{"go test ./..."}},
		{"GOFLAGS=-mod=mod timeout 600 go build ./cmd/app > /dev/null", []string{"go build ./cmd/app"}},
		{"npm run build; npm test -- -t 'parses dates'", []string{"npm run build", "npm test --"}},
		{"ls -la && cat README.md", nil},
		{"pytest -k reconnect tests/", []string{"pytest tests/"}},
		{"git commit -m 'make it work'", nil},
	}
	for _, tt := range tests {
		if got := buildCommands(tt.script); !slices.Equal(got, tt.want) {
			t.Errorf("buildCommands(%q) = %q, want %q", tt.script, got, tt.want)
		}
	}
}

func TestSupersedes(t *testing.T) {
	tests := []struct {
		older, newer Entry
		want         bool
	}{
		{Entry{Kind: Rule, Text: "Always run the tests with -race."}, Entry{Kind: Constraint, Text: "Stop running the tests with -race, it is too slow."}, true},
		{Entry{Kind: Rule, Text: "Use npm for installs."}, Entry{Kind: Rule, Text: "Use pnpm instead of npm."}, true},
		{Entry{Kind: Constraint, Text: "Don't add dependencies to the core package."}, Entry{Kind: Rule, Text: "You may add dependencies to the core package now."}, true},
		{Entry{Kind: Constraint, Text: "Never push to master."}, Entry{Kind: Rule, Text: "Always run the tests with -race."}, false},
		{Entry{Kind: Rule, Text: "Use tabs in Go files."}, Entry{Kind: Rule, Text: "Use spaces in the YAML files."}, false},
		{Entry{Kind: Constraint, Text: "Don't use npm."}, Entry{Kind: Constraint, Text: "Never use npm for anything."}, false},
	}
	for _, tt := range tests {
		if got := supersedes(&tt.newer, &tt.older, terms(tt.newer.Text), terms(tt.older.Text)); got != tt.want {
			t.Errorf("supersedes(%q, %q) = %v, want %v", tt.newer.Text, tt.older.Text, got, tt.want)
		}
	}
}

// twoSessions: a rule said three times over two sessions, a rule reversed in the second, a
// constraint, a decision, build commands and edits.
func twoSessions(t *testing.T, dir string) (a, b string) {
	a = session(t, dir, "aaaa1111", day,
		"Always run the tests with -race.",
		"Use npm for installs.",
		"$ go test -race ./...",
		"edit /home/dev/app/internal/cache/cache.go",
		"Never push to master.",
		"always run the tests with -race",
	)
	b = session(t, dir, "bbbb2222", day.Add(48*time.Hour),
		"Always run the tests with -race.",
		"Use pnpm instead of npm.",
		"agent: I decided to keep the cache in memory because the data set is small.",
		"$ cd /home/dev/app && go test -race ./... 2>&1 | tail",
		"edit /home/dev/app/internal/cache/cache.go",
	)
	return a, b
}

func TestReadCountsAndSupersedes(t *testing.T) {
	dir := t.TempDir()
	a, b := twoSessions(t, dir)
	m, err := Read(context.Background(), []string{a, b}, Options{Base: "/home/dev/app"})
	if err != nil {
		t.Fatal(err)
	}
	race := find(m.Entries, Rule, "Always run the tests with -race.")
	if race == nil || race.Count != 3 || race.Sessions != 2 {
		t.Fatalf("the -race rule: %+v, want 3× in 2 sessions", race)
	}
	if got := race.Sources[0]; filepath.Base(got.Path) != "bbbb2222.jsonl" || got.Line != 1 || !got.Time.Equal(day.Add(48*time.Hour)) {
		t.Errorf("newest source %+v, want bbbb2222.jsonl:1 at %s", got, day.Add(48*time.Hour))
	}
	npm := find(m.Entries, Rule, "Use npm for installs.")
	if npm == nil || npm.Superseded == nil || npm.Superseded.Text != "Use pnpm instead of npm." {
		t.Errorf("npm rule: %+v, want superseded by the pnpm rule", npm)
	}
	if e := find(m.Entries, Rule, "Use pnpm instead of npm."); e == nil || e.Superseded != nil {
		t.Errorf("pnpm rule: %+v, want current", e)
	}
	if e := find(m.Entries, Constraint, "Never push to master."); e == nil || e.Sources[0].Line != 5 {
		t.Errorf("constraint: %+v", e)
	}
	if e := find(m.Entries, Decision, "I decided to keep the cache in memory because the data set is small."); e == nil {
		t.Errorf("decision missing from %+v", m.Entries)
	}
	if e := find(m.Entries, Command, "go test -race ./..."); e == nil || e.Count != 2 || e.Sessions != 2 {
		t.Errorf("command: %+v, want 2× in 2 sessions", e)
	}
	if e := find(m.Entries, File, "internal/cache/cache.go"); e == nil || e.Count != 2 {
		t.Errorf("file (relative to the base): %+v", e)
	}
	// The order of the files does not matter.
	m2, err := Read(context.Background(), []string{b, a}, Options{Base: "/home/dev/app", Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(Markdown(m.Entries), Markdown(m2.Entries)) {
		t.Errorf("the order of the files changed the memory:\n%s\n%s", Markdown(m.Entries), Markdown(m2.Entries))
	}
}

func TestMinCountKeepsReversals(t *testing.T) {
	dir := t.TempDir()
	a, b := twoSessions(t, dir)
	m, err := Read(context.Background(), []string{a, b}, Options{MinCount: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range m.Entries {
		if e.Count < 2 {
			t.Errorf("entry seen %d× kept with --min-count 2: %q", e.Count, e.Text)
		}
	}
	if find(m.Entries, Rule, "Always run the tests with -race.") == nil {
		t.Error("the rule said 3× is missing")
	}
}

func TestMarkdownRoundTrip(t *testing.T) {
	dir := t.TempDir()
	a, b := twoSessions(t, dir)
	m, err := Read(context.Background(), []string{a, b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	md := Markdown(m.Entries)
	back, err := Section(md)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(m.Entries) {
		t.Fatalf("read back %d entries of %d:\n%s", len(back), len(m.Entries), md)
	}
	for i, e := range m.Entries {
		g := back[i]
		if g.Kind != e.Kind || g.Text != e.Text || g.Count != e.Count || g.Sessions != e.Sessions || !g.Last.Equal(e.Last.Truncate(time.Minute)) || len(g.Sources) != len(e.Sources) || (g.Superseded == nil) != (e.Superseded == nil) {
			t.Errorf("entry %d read back as %+v, want %+v", i, g, e)
		}
		for j := range g.Sources {
			if g.Sources[j].Path != filepath.Base(e.Sources[j].Path) || g.Sources[j].Line != e.Sources[j].Line {
				t.Errorf("entry %d source %d: %+v, want %+v", i, j, g.Sources[j], e.Sources[j])
			}
		}
	}
	if !bytes.Equal(Markdown(back), md) {
		t.Errorf("rendering what was read back differs:\n%s\n---\n%s", Markdown(back), md)
	}
}

func TestCodeSpans(t *testing.T) {
	for _, s := range []string{"go test ./...", "echo `date`", "`x`", "a``b", "``"} {
		if got := uncodeSpan(codeSpan(s)); got != s {
			t.Errorf("codeSpan(%q) = %q reads back as %q", s, codeSpan(s), got)
		}
	}
}

func TestSectionErrors(t *testing.T) {
	tests := []struct {
		file string
		line int
	}{
		{"# Notes\n" + StartMarker + "\n- x\n", 2},
		{"# Notes\n\n" + EndMarker + "\n", 3},
		{StartMarker + "\n" + StartMarker + "\n" + EndMarker + "\n", 2},
	}
	for _, tt := range tests {
		_, err := Section([]byte(tt.file))
		var se *SectionError
		if !errorsAs(err, &se) || se.Line != tt.line {
			t.Errorf("Section(%q) = %v, want an error at line %d", tt.file, err, tt.line)
		}
		if _, err := Update([]byte(tt.file), Markdown(nil)); err == nil {
			t.Errorf("Update(%q) wrote over a broken section", tt.file)
		}
	}
}

func errorsAs(err error, se **SectionError) bool {
	e, ok := err.(*SectionError)
	if ok {
		*se = e
	}
	return ok
}

func TestUpdateFileKeepsTheUsersBytes(t *testing.T) {
	dir := t.TempDir()
	a, b := twoSessions(t, dir)
	above := "# My project\n\nUse the Makefile.\n\n"
	below := "\n## Notes I keep myself\n\n- deploy on Fridays only after lunch\n"
	path := filepath.Join(dir, "CLAUDE.md")
	if err := os.WriteFile(path, []byte(above+StartMarker+"\nold text\n"+EndMarker+below), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := Read(context.Background(), []string{a}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dry, err := UpdateFile(path, m, []string{a}, Options{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !dry.Changed || !bytes.Contains(dry.Diff, []byte("run the tests with -race _(2× in 1 session")) || !bytes.Contains(dry.Diff, []byte("-old text")) {
		t.Errorf("dry run diff:\n%s", dry.Diff)
	}
	if data, _ := os.ReadFile(path); string(data) != above+StartMarker+"\nold text\n"+EndMarker+below {
		t.Fatal("a dry run wrote the file")
	}
	u, err := UpdateFile(path, m, []string{a}, Options{}, false)
	if err != nil || !u.Changed {
		t.Fatalf("update: %v, changed %v", err, u != nil && u.Changed)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), above+StartMarker+"\n") || !strings.HasSuffix(string(data), EndMarker+below) {
		t.Errorf("the user's text changed:\n%s", data)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", info.Mode().Perm())
	}
	again, err := UpdateFile(path, m, []string{a}, Options{}, false)
	if err != nil || again.Changed {
		t.Errorf("a second run over the same sessions changed the file (%v)", err)
	}
	// The second session flushed alone (as a hook does): counts add up, nothing is lost.
	mb, err := Read(context.Background(), []string{b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := UpdateFile(path, mb, []string{b}, Options{}, false); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	es, _ := Section(data)
	if e := find(es, Rule, "Always run the tests with -race."); e == nil || e.Count != 3 || e.Sessions != 2 {
		t.Errorf("after the second session: %+v, want 3× in 2 sessions", e)
	}
	if e := find(es, Constraint, "Never push to master."); e == nil {
		t.Error("the first session's constraint was lost")
	}
	if e := find(es, Rule, "Use npm for installs."); e == nil || e.Superseded == nil {
		t.Errorf("npm rule after the second session: %+v, want superseded", e)
	}
	// Both sessions at once now change nothing: the counts were exact.
	mab, err := Read(context.Background(), []string{a, b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if u, err := UpdateFile(path, mab, []string{a, b}, Options{}, false); err != nil || u.Changed {
		t.Errorf("both sessions after both flushes changed the file (%v):\n%s", err, u.Diff)
	}
}

func TestUpdateFileCreatesAndFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	a, _ := twoSessions(t, dir)
	m, err := Read(context.Background(), []string{a}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	agents := filepath.Join(dir, "AGENTS.md")
	os.WriteFile(agents, []byte("no newline at the end"), 0o644)
	link := filepath.Join(dir, "CLAUDE.md")
	if err := os.Symlink("AGENTS.md", link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if _, err := UpdateFile(link, m, []string{a}, Options{}, false); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced by a file")
	}
	data, _ := os.ReadFile(agents)
	if !strings.HasPrefix(string(data), "no newline at the end\n\n"+StartMarker) {
		t.Errorf("AGENTS.md:\n%s", data)
	}
	created := filepath.Join(dir, "new", "MEMORY.md")
	os.Mkdir(filepath.Dir(created), 0o755)
	u, err := UpdateFile(created, m, []string{a}, Options{}, false)
	if err != nil || !u.Created {
		t.Fatalf("creating: %v", err)
	}
}

func TestUpdateFileFailureLeavesTheFile(t *testing.T) {
	dir := t.TempDir()
	a, _ := twoSessions(t, dir)
	m, _ := Read(context.Background(), []string{a}, Options{})
	path := filepath.Join(dir, "CLAUDE.md")
	broken := "# x\n" + StartMarker + "\nno end marker\n"
	os.WriteFile(path, []byte(broken), 0o644)
	_, err := UpdateFile(path, m, []string{a}, Options{}, false)
	if err == nil || !strings.Contains(err.Error(), path+":2:") {
		t.Errorf("error %v, want one naming %s:2", err, path)
	}
	if data, _ := os.ReadFile(path); string(data) != broken {
		t.Error("a failed update changed the file")
	}
	// An unwritable folder: the file stays as it was.
	good := filepath.Join(dir, "ro", "CLAUDE.md")
	os.Mkdir(filepath.Dir(good), 0o755)
	os.WriteFile(good, []byte("mine\n"), 0o644)
	os.Chmod(filepath.Dir(good), 0o555)
	defer os.Chmod(filepath.Dir(good), 0o755)
	if _, err := UpdateFile(good, m, []string{a}, Options{}, false); err == nil && os.Geteuid() != 0 {
		t.Error("writing into a read-only folder succeeded")
	}
	if data, _ := os.ReadFile(good); os.Geteuid() != 0 && string(data) != "mine\n" {
		t.Error("a failed write changed the file")
	}
}
