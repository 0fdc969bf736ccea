package cmd

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/cmd/exportcmd"
	"github.com/ctxc/ctxc/internal/redact"
	"github.com/klauspost/compress/zstd"
)

// duckdb runs one SQL statement in DuckDB (scripts/duckdb.sh) and returns its rows; the test
// skips without it. DuckDB, not ctxc, reads the Parquet files: what it reads is what a team's
// queries get.
func duckdb(t *testing.T, sql string) []map[string]any {
	t.Helper()
	bin := os.Getenv("CTXC_DUCKDB")
	if bin == "" {
		t.Skip("CTXC_DUCKDB is not set: install DuckDB with eval \"$(scripts/duckdb.sh)\"")
	}
	out, err := exec.Command(bin, sql).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("duckdb %s: %v\n%s", sql, err, msg)
	}
	var rows []map[string]any
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("duckdb output: %v\n%s", err, out)
	}
	return rows
}

// table is the SQL that reads one table of an export in dest.
func table(dest, name string) string {
	return fmt.Sprintf("read_parquet('%s/%s/**/*.parquet', hive_partitioning=true)", dest, name)
}

// num reads a number DuckDB gave (big integers come as strings).
func num(t *testing.T, v any) float64 {
	t.Helper()
	switch x := v.(type) {
	case float64:
		return x
	case string:
		f, err := strconv.ParseFloat(x, 64)
		if err != nil {
			t.Fatalf("not a number: %q", x)
		}
		return f
	case nil:
		return 0
	}
	t.Fatalf("not a number: %v", v)
	return 0
}

// statsFiles runs ctxc stats --json on paths and returns its file objects by path.
func statsFiles(t *testing.T, paths ...string) map[string]map[string]any {
	t.Helper()
	out, errOut, code := runInProcess(t, append([]string{"stats", "--json"}, paths...))
	if code != 0 {
		t.Fatalf("stats: exit %d\n%s", code, errOut)
	}
	files := map[string]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var v map[string]any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		if v["type"] == "file" {
			files[v["path"].(string)] = v
		}
	}
	return files
}

// messagesOf is the number of messages of a stats file object.
func messagesOf(t *testing.T, st map[string]any) float64 {
	sum := 0.0
	for _, n := range st["messages"].(map[string]any) {
		sum += num(t, n)
	}
	return sum
}

// TestDuckDBExportAddsUpToStats: for every session of the fixtures (every agent's format), the
// messages DuckDB reads from the export are as many as ctxc stats counts and their tokens add up
// to its estimate; the sessions table says the same, with the agent as partition and the cost.
func TestDuckDBExportAddsUpToStats(t *testing.T) {
	duckdb(t, "select 1")
	dest := t.TempDir()
	fixtures := "../testdata/fixtures"
	if _, errOut, code := runInProcess(t, []string{"export", "--parquet", dest, fixtures}); code != 0 {
		t.Fatalf("export: exit %d\n%s", code, errOut)
	}
	stats := statsFiles(t, fixtures)
	msgs := map[string]map[string]any{}
	for _, r := range duckdb(t, "select session, count(*) as n, sum(tokens) as tokens from "+table(dest, "messages")+" group by session") {
		msgs[r["session"].(string)] = r
	}
	sessions := map[string]map[string]any{}
	for _, r := range duckdb(t, "select * from "+table(dest, "sessions")) {
		sessions[r["session"].(string)] = r
	}
	formats := map[string]bool{}
	for path, st := range stats {
		name := "fixtures/" + filepath.Base(path)
		formats[st["format"].(string)] = true
		m, s := msgs[name], sessions[name]
		if s == nil {
			t.Errorf("%s: no row in sessions", name)
			continue
		}
		want, tokens := messagesOf(t, st), num(t, st["tokens"])
		if got := num(t, m["n"]); got != want {
			t.Errorf("%s: %v messages in the table, stats counts %v", name, got, want)
		}
		if got := num(t, m["tokens"]); got != tokens {
			t.Errorf("%s: %v tokens in the table, stats %v", name, got, tokens)
		}
		if num(t, s["messages"]) != want || num(t, s["tokens"]) != tokens || s["agent"] != st["format"] {
			t.Errorf("%s: sessions row %v, stats %v messages %v tokens %v", name, s, want, tokens, st["format"])
		}
		if cost, ok := st["cost"].(map[string]any); ok && fmt.Sprintf("%.6f", num(t, cost["usd"])) != fmt.Sprintf("%.6f", num(t, s["cost_usd"])) {
			t.Errorf("%s: cost %v, stats %v", name, s["cost_usd"], cost["usd"])
		}
	}
	for _, f := range []string{"claude-code", "codex", "pi", "copilot", "droid", "gemini-cli", "qwen-code", "openai"} {
		if !formats[f] {
			t.Errorf("no fixture of %s", f)
		}
	}
	usage := duckdb(t, "select count(*) as n from "+table(dest, "usage"))
	comp := duckdb(t, "select count(*) as n, count(distinct agent) as agents from "+table(dest, "compactions")+" where facts >= kept")
	if num(t, usage[0]["n"]) == 0 || num(t, comp[0]["n"]) == 0 {
		t.Errorf("usage %v, compactions %v", usage, comp)
	}
}

// plantedSecrets are made-up secrets of every kind ctxc redacts, as a session shows them.
var plantedSecrets = map[string]string{
	"private-key":       "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n-----END RSA PRIVATE KEY-----",
	"anthropic-key":     "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-AAAA",
	"openai-key":        "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
	"aws-access-key":    "AKIAQ3EGRT5XWZ7LMN2P",
	"aws-secret-key":    "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",
	"github-token":      "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngOnly00AbCd",
	"slack-token":       "xoxb-1234567890-0987654321-AbCdEfGhIjKl",
	"google-api-key":    "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
	"bearer-token":      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
	"url-password":      "Hunter2Secret",
	"connection-string": "dGhpc2lzbm90YXJlYWxrZXk=",
	"password":          "Tr0ub4dor3",
}

// probeOf is the part of a planted secret looked for: its longest line (a key block's body).
func probeOf(secret string) string {
	best := ""
	for _, l := range strings.Split(secret, "\n") {
		if len(l) > len(best) {
			best = l
		}
	}
	return best
}

// secretText is a text holding every planted secret in its usual setting.
func secretText() string {
	s := plantedSecrets
	return strings.Join([]string{
		"here is my key " + s["private-key"],
		"ANTHROPIC_API_KEY=" + s["anthropic-key"],
		"OPENAI_API_KEY=" + s["openai-key"],
		"aws_access_key_id = " + s["aws-access-key"],
		"aws_secret_access_key = " + s["aws-secret-key"],
		"git clone https://" + s["github-token"] + "@github.com/x/y",
		"SLACK_BOT_TOKEN=" + s["slack-token"],
		"maps?key=" + s["google-api-key"] + "&x=1",
		"curl -H 'Authorization: Bearer " + s["bearer-token"] + "'",
		"DATABASE_URL=postgres://app:" + s["url-password"] + "@db.internal:5432/prod",
		"AccountName=acct;AccountKey=" + s["connection-string"] + ";EndpointSuffix=core",
		"mysql -u root --password=" + s["password"],
	}, "\n")
}

// writeSecretSessions writes a Claude Code and a Codex session under dir whose user text and
// tool output hold every planted secret, between messages that hold none.
func writeSecretSessions(t *testing.T, dir string) {
	t.Helper()
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	text := secretText()
	claude := strings.Join([]string{
		`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","cwd":"/w","timestamp":"2026-11-28T10:00:00.000Z","message":{"role":"user","content":"set up the deploy"}}`,
		`{"type":"user","uuid":"u2","parentUuid":"u1","sessionId":"s1","cwd":"/w","timestamp":"2026-11-28T10:00:01.000Z","message":{"role":"user","content":` + q(text) + `}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u2","sessionId":"s1","cwd":"/w","timestamp":"2026-11-28T10:00:02.000Z","message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cat .env"}}],"usage":{"input_tokens":10,"output_tokens":5}}}`,
		`{"type":"user","uuid":"r1","parentUuid":"a1","sessionId":"s1","cwd":"/w","timestamp":"2026-11-28T10:00:03.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":` + q(text) + `}]}}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"r1","sessionId":"s1","cwd":"/w","timestamp":"2026-11-28T10:00:04.000Z","message":{"id":"m2","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Deployed, nothing secret here."}],"usage":{"input_tokens":20,"output_tokens":5}}}`,
	}, "\n") + "\n"
	codex := strings.Join([]string{
		`{"timestamp":"2026-11-28T09:00:00.000Z","type":"session_meta","payload":{"id":"0199a000-0000-7000-8000-00000000000a","timestamp":"2026-11-28T09:00:00.000Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.46.0"}}`,
		`{"timestamp":"2026-11-28T09:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":` + q(text) + `}]}}`,
		`{"timestamp":"2026-11-28T09:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"env\"]}","call_id":"c1"}}`,
		`{"timestamp":"2026-11-28T09:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":` + q(text) + `}}`,
		`{"timestamp":"2026-11-28T09:00:04.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done, nothing secret here."}]}}`,
	}, "\n") + "\n"
	os.WriteFile(filepath.Join(dir, "claude.jsonl"), []byte(claude), 0o644)
	os.WriteFile(filepath.Join(dir, "codex.jsonl"), []byte(codex), 0o644)
}

// TestDuckDBExportRedactsEverySecret: secrets of every documented kind, planted in user text
// and tool output, are not in the Parquet that DuckDB reads back; each kind's placeholder is;
// and every message is otherwise as --no-redact exports it.
func TestDuckDBExportRedactsEverySecret(t *testing.T) {
	duckdb(t, "select 1")
	for _, k := range redact.Kinds() {
		if plantedSecrets[k.Name] == "" {
			t.Fatalf("no secret of kind %s is planted", k.Name)
		}
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "sessions")
	os.Mkdir(src, 0o755)
	writeSecretSessions(t, src)
	before := snapshot(t, src)
	redacted, plain := filepath.Join(dir, "redacted"), filepath.Join(dir, "plain")
	for _, args := range [][]string{{"export", "--parquet", redacted, src}, {"export", "--no-redact", "--parquet", plain, src}} {
		if _, errOut, code := runInProcess(t, args); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, errOut)
		}
	}
	if after := snapshot(t, src); after != before {
		t.Fatal("export changed the sessions")
	}
	query := "select session, seq, role, tokens, tool, text from %s order by session, seq"
	got, want := duckdb(t, fmt.Sprintf(query, table(redacted, "messages"))), duckdb(t, fmt.Sprintf(query, table(plain, "messages")))
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("%d messages redacted, %d plain", len(got), len(want))
	}
	for kind, secret := range plantedSecrets {
		placed := 0
		for _, r := range got {
			text := r["text"].(string)
			if strings.Contains(text, probeOf(secret)) {
				t.Errorf("%s: the secret is still in message %v of %v", kind, r["seq"], r["session"])
			}
			if strings.Contains(text, "[REDACTED:"+kind+":") {
				placed++
			}
		}
		if placed < 4 { // user text and tool output, in both sessions
			t.Errorf("%s: placeholder in %d messages, want 4", kind, placed)
		}
	}
	for i := range got {
		w, _ := redact.String(want[i]["text"].(string))
		g := got[i]
		if g["text"] != w || g["session"] != want[i]["session"] || g["role"] != want[i]["role"] || g["tool"] != want[i]["tool"] {
			t.Errorf("message %d: %v\nwant %v", i, g, want[i])
		}
	}
}

// snapshot is the content of every file under dir, for a check that nothing changed.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		b.WriteString(e.Name() + "\n" + string(data))
	}
	return b.String()
}

// TestArchiveRedactLeavesNoSecret: archive --redact leaves none of the planted secrets in the
// archive, keeps every line without one byte for byte and every line valid JSON, and ctxc
// reads the archived session as the source: the same messages.
func TestArchiveRedactLeavesNoSecret(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "sessions")
	os.Mkdir(src, 0o755)
	writeSecretSessions(t, src)
	before := snapshot(t, src)
	dest := filepath.Join(dir, "archive")
	if _, errOut, code := runInProcess(t, []string{"archive", "--redact", src, dest}); code != 0 {
		t.Fatalf("archive --redact: exit %d\n%s", code, errOut)
	}
	if snapshot(t, src) != before {
		t.Fatal("archive --redact changed the sessions")
	}
	dec, _ := zstd.NewReader(nil)
	defer dec.Close()
	stSrc := statsFiles(t, src)
	var names []string
	for p := range stSrc {
		names = append(names, filepath.Base(p))
	}
	sort.Strings(names)
	for _, name := range names {
		data, _ := os.ReadFile(filepath.Join(src, name))
		zst, err := os.ReadFile(filepath.Join(dest, "sessions", name+".zst"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := dec.DecodeAll(zst, nil)
		if err != nil {
			t.Fatal(err)
		}
		for kind, secret := range plantedSecrets {
			if strings.Contains(string(got), probeOf(secret)) {
				t.Errorf("%s: the archive holds the %s", name, kind)
			}
		}
		srcLines, gotLines := strings.Split(string(data), "\n"), strings.Split(string(got), "\n")
		if len(srcLines) != len(gotLines) {
			t.Fatalf("%s: %d lines archived, %d in the session", name, len(gotLines), len(srcLines))
		}
		for i, l := range srcLines {
			if !strings.Contains(l, "Tr0ub4dor3") && gotLines[i] != l {
				t.Errorf("%s:%d: a line without secrets changed:\n%s\n%s", name, i+1, l, gotLines[i])
			}
			if l != "" && !json.Valid([]byte(gotLines[i])) {
				t.Errorf("%s:%d: not JSON any more: %s", name, i+1, gotLines[i])
			}
		}
		stArc := statsFiles(t, filepath.Join(dest, "sessions", name+".zst"))
		for _, st := range stArc {
			if messagesOf(t, st) != messagesOf(t, stSrc[filepath.Join(src, name)]) || st["format"] != stSrc[filepath.Join(src, name)]["format"] {
				t.Errorf("%s: the archive reads as %v, the session as %v", name, st, stSrc[filepath.Join(src, name)])
			}
		}
	}
}

// TestS3ExportParquet: an export to the real S3 server puts every part it writes and its state
// as objects, which DuckDB reads as the local export; a second run with nothing changed sends
// nothing.
func TestS3ExportParquet(t *testing.T) {
	prefix := s3Bucket(t)
	duckdb(t, "select 1")
	env := s3Env(t, t.TempDir())
	run := func() (parts []string, messages int, sum exportcmd.Summary) {
		out := runS3(t, env, "export", "--json", "--parquet", prefix, "../testdata/fixtures")
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if strings.Contains(line, `"type":"summary"`) {
				json.Unmarshal([]byte(line), &sum)
				continue
			}
			var r struct {
				Parts    []string `json:"parts"`
				Messages int      `json:"messages"`
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatal(err)
			}
			parts, messages = append(parts, r.Parts...), messages+r.Messages
		}
		return parts, messages, sum
	}
	parts, messages, first := run()
	if first.New == 0 || first.Failed != 0 || len(parts) == 0 {
		t.Fatalf("first export: %+v", first)
	}
	store := s3Store(t, prefix)
	objs, err := store.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, o := range objs {
		have[o.Key] = true
	}
	if !have[".ctxc-export.json"] {
		t.Errorf("no state object among %d", len(objs))
	}
	local := t.TempDir()
	for _, p := range parts {
		if !have[p] {
			t.Fatalf("part %s is not in the bucket", p)
		}
		if !strings.HasPrefix(p, "messages/") {
			continue
		}
		dst := filepath.Join(local, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(dst), 0o755)
		f, _ := os.Create(dst)
		if err := store.Get(t.Context(), p, f); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	rows := duckdb(t, "select count(*) as n from "+table(local, "messages"))
	if int(num(t, rows[0]["n"])) != messages {
		t.Errorf("DuckDB reads %v messages from the bucket's parts, the export wrote %d", rows[0]["n"], messages)
	}
	again, _, second := run()
	if len(again) != 0 || second.Unchanged != first.Files {
		t.Errorf("second export sent %d parts: %+v", len(again), second)
	}
}

// TestExportBadInputNamesFileAndLine: a file that is not a session fails alone, named, the
// others exported; a line that is not JSON is a warning naming the file and the line, its
// session exported without it.
func TestExportBadInputNamesFileAndLine(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "sessions")
	os.Mkdir(src, 0o755)
	garbage := strings.Repeat("this is not json\n", 20)
	os.WriteFile(filepath.Join(src, "a-garbage.jsonl"), []byte(garbage), 0o644)
	os.WriteFile(filepath.Join(src, "b-one-bad-line.jsonl"), []byte(`{"role":"user","content":"hi"}`+"\n{oops\n"+`{"role":"assistant","content":"hello"}`+"\n"), 0o644)
	dest := filepath.Join(dir, "out")
	_, errOut, code := runInProcess(t, []string{"export", "--parquet", dest, src})
	if code == 0 {
		t.Fatalf("exit 0 with a file that is not a session\n%s", errOut)
	}
	if !strings.Contains(errOut, "a-garbage.jsonl") {
		t.Errorf("the bad file is not named:\n%s", errOut)
	}
	if !strings.Contains(errOut, "b-one-bad-line.jsonl:2:") {
		t.Errorf("the bad line is not named:\n%s", errOut)
	}
	if !strings.Contains(errOut, "1 new, 0 changed, 0 unchanged, 1 failed") {
		t.Errorf("summary: %s", errOut)
	}
}

// TestExportJobsWriteWhatOneJobWrites: sessions exported at once write the parts, the state and
// the output of a run on one core, in the order of the files; the files of one session name (a
// session and its archive) are exported in turn, the last given last.
func TestExportJobsWriteWhatOneJobWrites(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "sessions")
	os.Mkdir(src, 0o755)
	fixtures, _ := filepath.Glob(filepath.Join("..", "testdata", "fixtures", "*.jsonl"))
	if len(fixtures) < 8 {
		t.Fatalf("%d fixtures", len(fixtures))
	}
	for _, f := range fixtures {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(src, filepath.Base(f)), b, 0o644)
	}
	// One session twice: as itself and as its archive (one session name).
	plain, _ := os.ReadFile(filepath.Join(src, "codex-bare.jsonl"))
	enc, _ := zstd.NewWriter(nil)
	os.WriteFile(filepath.Join(src, "codex-bare.jsonl.zst"), enc.EncodeAll(plain, nil), 0o644)

	export := func(jobs string) (dest, out string) {
		dest = filepath.Join(dir, "out-"+jobs)
		out, errOut, code := runInProcess(t, []string{"export", "--json", "-j", jobs, "--parquet", dest, src})
		if code != 0 && code != 3 {
			t.Fatalf("-j %s: exit %d\n%s", jobs, code, errOut)
		}
		return dest, out
	}
	one, outOne := export("1")
	many, outMany := export("4")
	if outOne != outMany {
		t.Errorf("the output of -j 4 is not that of -j 1:\n%s\n---\n%s", outMany, outOne)
	}
	parts := func(dest string) map[string]string {
		got := map[string]string{}
		filepath.WalkDir(dest, func(p string, d os.DirEntry, err error) error {
			rel, _ := filepath.Rel(dest, p)
			// The sessions table holds the time of the export.
			if err != nil || d.IsDir() || strings.HasPrefix(rel, "sessions"+string(filepath.Separator)) {
				return err
			}
			b, _ := os.ReadFile(p)
			got[rel] = string(b)
			return nil
		})
		return got
	}
	a, b := parts(one), parts(many)
	if len(a) < 10 || len(a) != len(b) {
		t.Fatalf("%d parts with -j 1, %d with -j 4", len(a), len(b))
	}
	for rel, content := range a {
		if b[rel] != content {
			t.Errorf("%s differs between -j 1 and -j 4", rel)
		}
	}
	var st struct {
		Sessions map[string]struct{ Path string } `json:"sessions"`
	}
	raw, _ := os.ReadFile(filepath.Join(many, ".ctxc-export.json"))
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	found := false
	for name, s := range st.Sessions {
		if strings.HasSuffix(name, "codex-bare.jsonl") {
			found = true
			if !strings.HasSuffix(s.Path, "codex-bare.jsonl.zst") {
				t.Errorf("the session given twice holds %q, not the last given (its archive)", s.Path)
			}
		}
	}
	if !found {
		t.Errorf("no session codex-bare.jsonl in the state: %s", raw)
	}
}
