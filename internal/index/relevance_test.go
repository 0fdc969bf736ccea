package index

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// labelled is a small set of sessions, each about one thing, told in the words users and
// agents use; many words (fix, test, error, file, the project's names) are shared between
// them, so that ranking has to weigh the rare ones.
var labelled = []struct {
	name  string
	turns []string // user, assistant, user, assistant...
}{
	{"reconnect", []string{
		"the websocket client drops and never reconnects after the server restarts, fix the reconnect bug",
		"I found it: the backoff timer is cleared on close, so the reconnect loop exits. I changed client.go to keep the timer and retry with exponential backoff.",
		"run the tests again",
		"All tests pass; the reconnect test now restarts the server twice and the client reconnects both times."}},
	{"migration", []string{
		"write the database migration that adds a nullable email column to the users table",
		"Added migrations/0042_add_email.sql with ALTER TABLE users ADD COLUMN email TEXT; and the down migration.",
		"the migration fails on sqlite in CI",
		"SQLite cannot drop a column before 3.35, so the down migration now copies the table. The CI job passes."}},
	{"flaky", []string{
		"TestUploadRetries is flaky in CI, about one run in ten fails with a timeout",
		"The test shares a global HTTP client whose timeout another test shortens. I gave each test its own client; the failure no longer reproduces in 500 runs.",
		"good, commit it"}},
	{"docker", []string{
		"the docker image is 1.2 GB, make it smaller",
		"Switched the Dockerfile to a multi-stage build on distroless; the final image is 48 MB. The build stage caches go mod download.",
		"does the healthcheck still work",
		"Distroless has no shell, so the HEALTHCHECK now calls the binary's own /healthz probe."}},
	{"memory-leak", []string{
		"the worker's memory grows until the OOM killer stops it after a day",
		"A goroutine per request waits on a channel nobody closes. pprof shows 2 million goroutines. I added a context with cancel so the goroutines end; heap stays flat at 80 MB.",
		"add a test for the leak"}},
	{"css", []string{
		"the sidebar overlaps the main content on mobile screens",
		"The sidebar had position fixed with a width of 300px. I changed the layout to a CSS grid with a media query that stacks the sidebar under 768px.",
		"the menu button is hidden now",
		"Its z-index was below the header; fixed, and the button toggles the sidebar."}},
	{"release", []string{
		"prepare the 2.0 release: changelog, version bump and tag",
		"Updated CHANGELOG.md with the breaking changes, bumped the version in version.go, and tagged v2.0.0. goreleaser builds the archives.",
		"the homebrew tap did not update",
		"The tap token had expired; after renewing it the release workflow pushed the formula."}},
	{"auth", []string{
		"users are logged out every five minutes, the refresh token does not work",
		"The refresh endpoint rejected tokens because the clock skew check used seconds where the token has milliseconds. Fixed the unit conversion in auth/refresh.go.",
		"add a test with a skewed clock"}},
	{"csv-parser", []string{
		"the csv import breaks on quoted fields that contain commas",
		"The importer split lines on commas by hand. I replaced it with encoding/csv, which handles quotes and embedded newlines; the fixture with quoted commas now imports.",
		"and the header row with a BOM?",
		"encoding/csv keeps the BOM in the first field, so the importer now strips it before reading the header."}},
	{"rate-limit", []string{
		"the API returns 429 too many requests when we sync more than 100 repositories",
		"Added a token bucket rate limiter that reads the X-RateLimit-Remaining header and waits for the reset time; the sync of 500 repositories finishes without a 429.",
		"make the limit configurable"}},
	{"i18n", []string{
		"translate the settings page into German and French",
		"Extracted the strings into locales/en.json and added de.json and fr.json; the language follows the browser's Accept-Language header.",
		"the date format is still American",
		"Dates now go through Intl.DateTimeFormat with the chosen locale."}},
	{"deadlock", []string{
		"the test suite hangs forever in the cache package",
		"Two goroutines take the cache mutex and the stats mutex in opposite orders: a deadlock. The stats update now happens after the cache lock is released; go test -race passes.",
		"run it a hundred times to be sure"}},
}

var relevanceQueries = []struct{ q, want string }{
	{"the session where I fixed the reconnect bug", "reconnect"},
	{"websocket backoff", "reconnect"},
	{"add email column migration", "migration"},
	{"sqlite drop column down migration", "migration"},
	{"flaky upload test timeout", "flaky"},
	{"shrink docker image distroless", "docker"},
	{"worker memory grows until OOM", "memory-leak"},
	{"pprof goroutines heap", "memory-leak"},
	{"sidebar mobile layout", "css"},
	{"homebrew tap release", "release"},
	{"refresh token logged out", "auth"},
	{"csv quoted commas", "csv-parser"},
	{"BOM in the header", "csv-parser"},
	{"429 rate limiter", "rate-limit"},
	{"German translation", "i18n"},
	{"mutex deadlock hangs", "deadlock"},
}

// writeLabelled writes each labelled session in a format of its own (Claude Code, Codex, pi,
// OpenAI messages, in turn).
func writeLabelled(t *testing.T, dir string) map[string]string {
	t.Helper()
	paths := map[string]string{}
	for i, s := range labelled {
		var b strings.Builder
		id := fmt.Sprintf("0000000%d-aaaa-4bbb-8ccc-%012d", i%10, i)
		cwd := "/home/me/src/" + s.name
		switch i % 4 {
		case 0:
			claudeSession(&b, id, cwd, s.turns)
		case 1:
			codexSession(&b, id, cwd, s.turns)
		case 2:
			piSession(&b, id, cwd, s.turns)
		default:
			for k, text := range s.turns {
				line(&b, map[string]any{"role": []string{"user", "assistant"}[k%2], "content": text})
			}
		}
		p := filepath.Join(dir, s.name+".jsonl")
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths[s.name] = p
	}
	return paths
}

func line(b *strings.Builder, v any) {
	j, _ := json.Marshal(v)
	b.Write(j)
	b.WriteByte('\n')
}

func stamp(k int) string { return fmt.Sprintf("2026-11-%02dT10:%02d:00Z", 1+k/60, k%60) }

func claudeSession(b *strings.Builder, id, cwd string, turns []string) {
	parent := any(nil)
	for k, text := range turns {
		uuid := fmt.Sprintf("%s-%d", id[:8], k)
		rec := map[string]any{"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": id, "cwd": cwd,
			"timestamp": stamp(k), "message": map[string]any{"role": "user", "content": text}}
		if k%2 == 1 {
			rec["type"] = "assistant"
			rec["message"] = map[string]any{"id": "msg_" + uuid, "role": "assistant", "type": "message",
				"content": []any{map[string]any{"type": "text", "text": text}}}
		}
		line(b, rec)
		parent = uuid
	}
}

func codexSession(b *strings.Builder, id, cwd string, turns []string) {
	line(b, map[string]any{"timestamp": stamp(0), "type": "session_meta", "payload": map[string]any{"id": id, "cwd": cwd, "timestamp": stamp(0)}})
	for k, text := range turns {
		role, kind := "user", "input_text"
		if k%2 == 1 {
			role, kind = "assistant", "output_text"
		}
		line(b, map[string]any{"timestamp": stamp(k), "type": "response_item", "payload": map[string]any{"type": "message", "role": role,
			"content": []any{map[string]any{"type": kind, "text": text}}}})
	}
}

func piSession(b *strings.Builder, id, cwd string, turns []string) {
	line(b, map[string]any{"type": "session", "version": 3, "id": id, "timestamp": stamp(0), "cwd": cwd})
	parent := any(nil)
	for k, text := range turns {
		eid := fmt.Sprintf("e%d", k)
		role := []string{"user", "assistant"}[k%2]
		line(b, map[string]any{"type": "message", "id": eid, "parentId": parent, "timestamp": stamp(k),
			"message": map[string]any{"role": role, "content": []any{map[string]any{"type": "text", "text": text}}}})
		parent = eid
	}
}

// TestSearchFindsTheLabelledSession: for each query, the session it is about is among the
// first three results, among sessions of four formats that share much of their vocabulary and
// a noise archive of generated sessions.
func TestSearchFindsTheLabelledSession(t *testing.T) {
	src := t.TempDir()
	paths := writeLabelled(t, src)
	files := genArchive(t, src, 60)
	for _, p := range paths {
		files = append(files, p)
	}
	dir := filepath.Join(t.TempDir(), "index")
	if _, err := Update(dir, files, nil, UpdateOptions{Warn: func(err error) { t.Error(err) }}); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, c := range relevanceQueries {
		res := r.Search(Query{Text: c.q, Limit: 3})
		var got []string
		found := false
		for _, x := range res {
			got = append(got, strings.TrimSuffix(filepath.Base(x.Path), ".jsonl"))
			found = found || x.Path == paths[c.want]
		}
		if !found {
			t.Errorf("%q: want %s in the top 3, got %v", c.q, c.want, got)
		}
	}
}

// TestSearchResults: what a result says of its session (agent, id, project, time, role,
// snippet, resume command), and the filters.
func TestSearchResults(t *testing.T) {
	src := t.TempDir()
	paths := writeLabelled(t, src)
	var files []string
	for _, p := range paths {
		files = append(files, p)
	}
	dir := filepath.Join(t.TempDir(), "index")
	if _, err := Update(dir, files, nil, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	r, _ := Open(dir)
	defer r.Close()
	res := r.Search(Query{Text: "reconnect", Limit: 1})
	if len(res) != 1 {
		t.Fatalf("results: %v", res)
	}
	r.Complete(res, "reconnect")
	got := res[0]
	if got.Agent != "claude-code" || got.Session != "00000000-aaaa-4bbb-8ccc-000000000000" || got.Project != "/home/me/src/reconnect" ||
		got.Time.IsZero() || got.Line == 0 || !strings.Contains(strings.ToLower(got.Snippet), "reconnect") ||
		got.Resume != "cd /home/me/src/reconnect && claude --resume 00000000-aaaa-4bbb-8ccc-000000000000" {
		t.Errorf("result: %+v", got)
	}
	cases := []struct {
		name string
		q    Query
		want int // results
	}{
		{"any", Query{Text: "test"}, 7},
		{"codex only", Query{Text: "sqlite", Agent: "codex"}, 2},
		{"pi only", Query{Text: "sqlite", Agent: "pi"}, 0},
		{"users only", Query{Text: "test", Roles: map[string]bool{"user": true}}, 4},
		{"project", Query{Text: "test", Project: "RECONNECT"}, 2},
		{"since", Query{Text: "migration", Since: mustTime(t, "2026-11-01T10:02:00Z")}, 2},
		{"until", Query{Text: "migration", Until: mustTime(t, "2026-11-01T10:01:00Z")}, 1},
		{"stopwords only", Query{Text: "the and of"}, 0},
	}
	for _, c := range cases {
		c.q.Limit = 50
		if res := r.Search(c.q); len(res) != c.want {
			t.Errorf("%s: %d results, want %d: %+v", c.name, len(res), c.want, res)
		}
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
