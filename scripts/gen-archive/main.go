// Command gen-archive writes a synthetic archive of agent sessions for benchmarks: sessions of
// Claude Code, Codex, pi, Copilot CLI, droid, Gemini CLI, Qwen Code and plain OpenAI message
// lists, laid out in the agents' own folders,
// with a Zipf-distributed vocabulary of 40,000 words, code and logs in tool results, and a few
// planted words whose sessions are known (their counts are printed, for queries):
//
//	go run ./scripts/gen-archive -size 1000000000 -o /tmp/archive
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	size := flag.Int64("size", 1<<30, "bytes to write in all")
	out := flag.String("o", "archive", "folder to write the agents' folders into")
	seed := flag.Int64("seed", 1, "random seed")
	sessions := flag.Int("sessions", 0, "sessions to write (instead of -size)")
	mean := flag.Int64("mean", 400_000, "the mean of a session's text beyond its least (bytes)")
	least := flag.Int64("least", 20_000, "the least text of a session (bytes)")
	flag.Parse()
	g := newGen(*seed)
	g.mean, g.least = float64(*mean), *least
	var total int64
	for i := 0; *sessions == 0 && total < *size || i < *sessions; i++ {
		n, err := g.session(*out, i)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		total += n
	}
	fmt.Printf("sessions %d bytes %d\n", g.sessions, total)
	for _, p := range planted {
		fmt.Printf("planted %s in %d sessions\n", p.word, g.plantedIn[p.word])
	}
}

// planted are words put into a known share of sessions, for queries of known selectivity.
var planted = []struct {
	word  string
	share float64
}{{"ECONNRESETQUOKKA", 0.002}, {"reconnectBackoffZebra", 0.01}, {"migration_0042_users_email", 0.05}, {"flakyUploadRetries", 0.2}}

type gen struct {
	r         *rand.Rand
	vocab     []string
	zipf      *rand.Zipf
	sessions  int
	plantedIn map[string]int
	start     time.Time
	mean      float64 // a session's text: least + an exponential of this mean
	least     int64
}

func newGen(seed int64) *gen {
	r := rand.New(rand.NewSource(seed))
	g := &gen{r: r, plantedIn: map[string]int{}, start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	syl := strings.Fields("ka ri to mu sen lo pa ve dri on ex al ter ion st ra ne co de fi gu ba mo tu")
	seen := map[string]bool{}
	for _, w := range strings.Fields(`the of and to in is that for it as with was on be by this are or from at an function
		return error value file line package import struct interface test build run go compile module context
		token session server client config option buffer reader writer stream parse encode decode json fix bug`) {
		seen[w] = true
		g.vocab = append(g.vocab, w)
	}
	for len(g.vocab) < 40000 {
		var b strings.Builder
		for k := 2 + r.Intn(3); k > 0; k-- {
			b.WriteString(syl[r.Intn(len(syl))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			g.vocab = append(g.vocab, w)
		}
	}
	g.zipf = rand.NewZipf(r, 1.07, 2, uint64(len(g.vocab)-1))
	return g
}

func (g *gen) word() string { return g.vocab[g.zipf.Uint64()] }

func (g *gen) text(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(g.word())
	}
	return b.String()
}

// blob is tool output of about n bytes: code and log lines.
func (g *gen) blob(n int) string {
	var b strings.Builder
	for ln := 1; b.Len() < n; ln++ {
		switch g.r.Intn(3) {
		case 0:
			fmt.Fprintf(&b, "%5d\tfunc %s%s(ctx context.Context, %s string) error {\n", ln, g.word(), title(g.word()), g.word())
		case 1:
			fmt.Fprintf(&b, "%5d\t\t// %s\n", ln, g.text(5+g.r.Intn(10)))
		default:
			fmt.Fprintf(&b, "2026-03-01T12:00:00Z INFO %s id=%08x path=\"/api/%s\" status=%d\n", g.word(), g.r.Uint32(), g.word(), []int{200, 404, 500}[g.r.Intn(3)])
		}
	}
	return b.String()
}

// turn is one message of a session: role, text, and for a tool call its name and result.
type turn struct {
	role, text, tool, result string
}

func (g *gen) turns(target int64) []turn {
	var ts []turn
	var n int64
	var plant []string
	for _, p := range planted {
		if g.r.Float64() < p.share {
			plant = append(plant, p.word)
			g.plantedIn[p.word]++
		}
	}
	for n < target {
		user := g.text(8 + g.r.Intn(30))
		if len(plant) > 0 && g.r.Intn(4) == 0 {
			user += " " + plant[g.r.Intn(len(plant))]
		}
		ts = append(ts, turn{role: "user", text: user})
		for k := g.r.Intn(4); k >= 0; k-- {
			res := g.blob(500 + g.r.Intn(20000))
			ts = append(ts, turn{role: "assistant", text: g.text(10 + g.r.Intn(60)), tool: "Read", result: res})
			n += int64(len(res))
		}
		ts = append(ts, turn{role: "assistant", text: g.text(20 + g.r.Intn(120))})
		n += int64(len(user)) + 2000
	}
	for _, w := range plant { // every planted word at least once
		ts = append(ts, turn{role: "user", text: "about " + w})
	}
	return ts
}

// session writes session i in the format of its turn: Claude Code, Codex, pi or OpenAI.
func (g *gen) session(out string, i int) (int64, error) {
	target := g.least + int64(g.r.ExpFloat64()*g.mean)
	ts := g.turns(target)
	id := fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", g.r.Uint32(), g.r.Intn(1<<16), g.r.Intn(1<<12), g.r.Intn(1<<12), g.r.Int63n(1<<48))
	at := g.start.Add(time.Duration(i) * 17 * time.Minute)
	cwd := fmt.Sprintf("/home/me/src/project%02d", i%37)
	var path string
	var lines []any
	switch i % 8 {
	case 0:
		path = filepath.Join(out, ".claude", "projects", strings.ReplaceAll(cwd, "/", "-"), id+".jsonl")
		lines = claudeLines(ts, id, cwd, at)
	case 1:
		path = filepath.Join(out, ".codex", "sessions", at.Format("2006/01/02"), "rollout-"+at.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
		lines = codexLines(ts, id, cwd, at)
	case 2:
		path = filepath.Join(out, ".pi", "agent", "sessions", strings.ReplaceAll(cwd, "/", "-"), at.Format("2006-01-02T15-04-05")+"_"+id+".jsonl")
		lines = piLines(ts, id, cwd, at)
	case 3:
		path = filepath.Join(out, ".copilot", "session-state", id, "events.jsonl")
		lines = copilotLines(ts, id, cwd, at)
	case 4:
		path = filepath.Join(out, ".factory", "sessions", strings.ReplaceAll(cwd, "/", "-"), id+".jsonl")
		lines = droidLines(ts, id, cwd, at)
	case 5:
		path = filepath.Join(out, ".gemini", "tmp", fmt.Sprintf("project%02d", i%37), "chats", "session-"+at.Format("2006-01-02T15-04")+"-"+id[:8]+".jsonl")
		lines = geminiLines(ts, id, at)
	case 6:
		path = filepath.Join(out, ".qwen", "projects", strings.ReplaceAll(cwd, "/", "-"), "chats", id+".jsonl")
		lines = qwenLines(ts, id, cwd, at)
	default:
		path = filepath.Join(out, "openai", fmt.Sprintf("s%05d.jsonl", i))
		lines = openaiLines(ts)
	}
	g.sessions++
	return writeLines(path, lines)
}

func writeLines(path string, lines []any) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			return 0, err
		}
	}
	if err := w.Flush(); err != nil {
		return 0, err
	}
	info, _ := f.Stat()
	return info.Size(), f.Close()
}

type m = map[string]any

func stampAt(at time.Time, k int) string {
	return at.Add(time.Duration(k) * time.Second).Format(time.RFC3339Nano)
}

func claudeLines(ts []turn, id, cwd string, at time.Time) []any {
	var out []any
	parent := any(nil)
	for k, t := range ts {
		u := fmt.Sprintf("%s-%06d", id[:8], k)
		rec := m{"type": "user", "uuid": u, "parentUuid": parent, "sessionId": id, "cwd": cwd, "timestamp": stampAt(at, k)}
		if t.role == "user" {
			rec["message"] = m{"role": "user", "content": t.text}
		} else {
			content := []any{m{"type": "text", "text": t.text}}
			if t.tool != "" {
				content = append(content, m{"type": "tool_use", "id": "toolu_" + u, "name": t.tool, "input": m{"file_path": cwd + "/main.go"}})
			}
			rec["type"] = "assistant"
			rec["message"] = m{"id": "msg_" + u, "type": "message", "role": "assistant", "content": content}
		}
		out = append(out, rec)
		parent = u
		if t.tool != "" {
			r := fmt.Sprintf("%s-%06dr", id[:8], k)
			out = append(out, m{"type": "user", "uuid": r, "parentUuid": parent, "sessionId": id, "cwd": cwd, "timestamp": stampAt(at, k),
				"message": m{"role": "user", "content": []any{m{"type": "tool_result", "tool_use_id": "toolu_" + u, "content": t.result}}}})
			parent = r
		}
	}
	return out
}

func codexLines(ts []turn, id, cwd string, at time.Time) []any {
	out := []any{m{"timestamp": stampAt(at, 0), "type": "session_meta", "payload": m{"id": id, "cwd": cwd, "timestamp": stampAt(at, 0), "originator": "codex_cli_rs"}}}
	for k, t := range ts {
		kind := "input_text"
		if t.role == "assistant" {
			kind = "output_text"
		}
		out = append(out, m{"timestamp": stampAt(at, k), "type": "response_item", "payload": m{"type": "message", "role": t.role, "content": []any{m{"type": kind, "text": t.text}}}})
		if t.tool != "" {
			call := fmt.Sprintf("call_%d", k)
			out = append(out, m{"timestamp": stampAt(at, k), "type": "response_item", "payload": m{"type": "function_call", "name": "shell", "arguments": `{"command":["cat","main.go"]}`, "call_id": call}},
				m{"timestamp": stampAt(at, k), "type": "response_item", "payload": m{"type": "function_call_output", "call_id": call, "output": t.result}})
		}
	}
	return out
}

func piLines(ts []turn, id, cwd string, at time.Time) []any {
	out := []any{m{"type": "session", "version": 3, "id": id, "timestamp": stampAt(at, 0), "cwd": cwd}}
	parent := any(nil)
	add := func(k int, msg m) {
		e := fmt.Sprintf("%08x", k)
		out = append(out, m{"type": "message", "id": e, "parentId": parent, "timestamp": stampAt(at, k), "message": msg})
		parent = e
	}
	for k, t := range ts {
		content := []any{m{"type": "text", "text": t.text}}
		if t.tool != "" {
			content = append(content, m{"type": "toolCall", "id": fmt.Sprintf("tc%d", k), "name": "read", "arguments": m{"path": "main.go"}})
		}
		add(2*k, m{"role": t.role, "content": content})
		if t.tool != "" {
			add(2*k+1, m{"role": "toolResult", "toolCallId": fmt.Sprintf("tc%d", k), "toolName": "read", "content": []any{m{"type": "text", "text": t.result}}})
		}
	}
	return out
}

func openaiLines(ts []turn) []any {
	var out []any
	for k, t := range ts {
		if t.tool == "" {
			out = append(out, m{"role": t.role, "content": t.text})
			continue
		}
		call := fmt.Sprintf("call_%d", k)
		out = append(out, m{"role": "assistant", "content": t.text, "tool_calls": []any{m{"id": call, "type": "function", "function": m{"name": "read", "arguments": `{"path":"main.go"}`}}}},
			m{"role": "tool", "tool_call_id": call, "content": t.result})
	}
	return out
}

// title capitalizes the first letter of an ASCII word (a camelCase identifier's second part).
func title(w string) string {
	if w == "" || w[0] < 'a' || w[0] > 'z' {
		return w
	}
	return string(w[0]-'a'+'A') + w[1:]
}

func copilotLines(ts []turn, id, cwd string, at time.Time) []any {
	parent := any(nil)
	var out []any
	add := func(k int, typ string, data m) {
		e := fmt.Sprintf("%s-%06d", id[:8], len(out))
		out = append(out, m{"type": typ, "data": data, "id": e, "timestamp": stampAt(at, k), "parentId": parent})
		parent = e
	}
	add(0, "session.start", m{"sessionId": id, "version": 1, "producer": "copilot-agent", "startTime": stampAt(at, 0), "context": m{"cwd": cwd}})
	for k, t := range ts {
		if t.role == "user" {
			add(k, "user.message", m{"content": t.text, "transformedContent": t.text, "messageId": fmt.Sprintf("u%d", k)})
			continue
		}
		var reqs []any
		call := fmt.Sprintf("call_%d", k)
		if t.tool != "" {
			reqs = []any{m{"toolCallId": call, "name": "view", "arguments": m{"path": cwd + "/main.go"}}}
		}
		add(k, "assistant.message", m{"messageId": fmt.Sprintf("a%d", k), "content": t.text, "toolRequests": reqs})
		if t.tool != "" {
			add(k, "tool.execution_complete", m{"toolCallId": call, "success": true, "result": m{"content": t.result}})
		}
	}
	return out
}

func droidLines(ts []turn, id, cwd string, at time.Time) []any {
	out := []any{m{"type": "session_start", "id": id, "title": "session", "owner": "me", "version": 2, "cwd": cwd}}
	parent := any(nil)
	add := func(k int, msg m) {
		e := fmt.Sprintf("m%d", len(out))
		rec := m{"type": "message", "id": e, "timestamp": stampAt(at, k), "message": msg}
		if parent != nil {
			rec["parentId"] = parent
		}
		out = append(out, rec)
		parent = e
	}
	for k, t := range ts {
		content := []any{m{"type": "text", "text": t.text}}
		call := fmt.Sprintf("call_%d", k)
		if t.tool != "" {
			content = append(content, m{"type": "tool_use", "id": call, "name": "Read", "input": m{"file_path": cwd + "/main.go"}})
		}
		add(k, m{"role": t.role, "content": content})
		if t.tool != "" {
			add(k, m{"role": "user", "content": []any{m{"type": "tool_result", "tool_use_id": call, "is_error": false, "content": t.result}}})
		}
	}
	return out
}

func geminiLines(ts []turn, id string, at time.Time) []any {
	out := []any{m{"sessionId": id, "projectHash": fmt.Sprintf("%064x", len(id)), "startTime": stampAt(at, 0), "lastUpdated": stampAt(at, 0), "kind": "main"}}
	for k, t := range ts {
		mid := fmt.Sprintf("%s-%06d", id[:8], k)
		if t.role == "user" {
			out = append(out, m{"id": mid, "timestamp": stampAt(at, k), "type": "user", "content": []any{m{"text": t.text}}})
			continue
		}
		rec := m{"id": mid, "timestamp": stampAt(at, k), "type": "gemini", "content": t.text, "model": "gemini-2.5-flash"}
		if t.tool != "" {
			call := fmt.Sprintf("read_file_%d", k)
			resp := m{"functionResponse": m{"id": call, "name": "read_file", "response": m{"output": t.result}}}
			rec["toolCalls"] = []any{m{"id": call, "name": "read_file", "args": m{"file_path": "main.go"}, "result": []any{resp}, "status": "success"}}
			out = append(out, rec)
			continue
		}
		out = append(out, rec)
	}
	return out
}

func qwenLines(ts []turn, id, cwd string, at time.Time) []any {
	var out []any
	parent := any(nil)
	add := func(k int, typ string, msg m) {
		u := fmt.Sprintf("%s-%06d", id[:8], len(out))
		out = append(out, m{"uuid": u, "parentUuid": parent, "sessionId": id, "timestamp": stampAt(at, k), "type": typ, "cwd": cwd, "version": "0.24.4", "message": msg})
		parent = u
	}
	for k, t := range ts {
		if t.role == "user" {
			add(k, "user", m{"role": "user", "parts": []any{m{"text": t.text}}})
			continue
		}
		parts := []any{m{"text": t.text}}
		call := fmt.Sprintf("call_%d", k)
		if t.tool != "" {
			parts = append(parts, m{"functionCall": m{"id": call, "name": "read_file", "args": m{"file_path": "main.go"}}})
		}
		add(k, "assistant", m{"role": "model", "parts": parts})
		if t.tool != "" {
			add(k, "tool_result", m{"role": "user", "parts": []any{m{"functionResponse": m{"id": call, "name": "read_file", "response": m{"output": t.result}}}}})
		}
	}
	return out
}
