package compact

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/llm"
	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/testsessions"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/tidwall/gjson"
)

// slowCompleter stands for an LLM that takes a while, so that an agent can write meanwhile;
// onCall runs when the request arrives (after ctxc has read the file).
type slowCompleter struct {
	delay  time.Duration
	onCall func()
}

func (s slowCompleter) Provider() string                    { return "ollama" }
func (s slowCompleter) Model() string                       { return "slow" }
func (s slowCompleter) Window(context.Context) (int, error) { return 1 << 20, nil }
func (s slowCompleter) Complete(ctx context.Context, _ []llm.Message, _ llm.Options) (llm.Reply, error) {
	if s.onCall != nil {
		s.onCall()
	}
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return llm.Reply{}, ctx.Err()
	}
	return llm.Reply{Text: "## Summary\nThe user asked to refactor pkg/parse; steps 0-30 read the files."}, nil
}

// agentWriter appends complete lines the way an agent does (one write per line, O_APPEND)
// until stop is closed, and returns what it wrote.
func agentWriter(t *testing.T, p string, stop <-chan struct{}, wg *sync.WaitGroup, written *[]string) {
	agentWriterOf(t, p, stop, wg, written, func(i int) string {
		return fmt.Sprintf(`{"role":"user","content":"agent line %d %s"}`, i, strings.Repeat("z", i%50))
	})
}

// agentWriterOf is agentWriter with the agent's line i given by line.
func agentWriterOf(t *testing.T, p string, stop <-chan struct{}, wg *sync.WaitGroup, written *[]string, line func(i int) string) {
	defer wg.Done()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		line := line(i)
		if _, err := f.Write([]byte(line + "\n")); err != nil {
			t.Error(err)
			return
		}
		*written = append(*written, line)
		time.Sleep(2 * time.Millisecond)
	}
}

func TestConcurrentWriter(t *testing.T) {
	const trials = 5
	for trial := 0; trial < trials; trial++ {
		for _, mode := range []string{"live", "changed", "force"} {
			p := writeOld(t, "live.jsonl", openAISession(40))
			before, _ := os.ReadFile(p)
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var written []string
			var once sync.Once
			startWriter := func() {
				once.Do(func() {
					wg.Add(1)
					go agentWriter(t, p, stop, &wg, &written)
					// The agent has written once before this returns, however late a loaded
					// machine runs its goroutine: "live" means the file grew before ctxc looked.
					for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
						if fi, err := os.Stat(p); err == nil && fi.Size() > int64(len(before)) {
							break
						}
						time.Sleep(time.Millisecond)
					}
					time.Sleep(10 * time.Millisecond)
				})
			}
			if mode == "live" {
				startWriter() // the agent is writing before ctxc starts
			}
			o := baseOptions()
			o.Force = mode == "force"
			o.Client = slowCompleter{delay: 30 * time.Millisecond, onCall: startWriter}
			out, err := File(context.Background(), p, o)
			startWriter()
			time.Sleep(10 * time.Millisecond)
			close(stop)
			wg.Wait()

			after, _ := os.ReadFile(p)
			if !bytes.HasPrefix(after, before) {
				t.Fatal("bytes before changed")
			}
			// Every line in the file is whole JSON: nothing spliced; every agent line is there,
			// in order.
			var lines []string
			sc := bufio.NewScanner(bytes.NewReader(after))
			sc.Buffer(make([]byte, 1<<20), 1<<24)
			for sc.Scan() {
				if !gjson.Valid(sc.Text()) {
					t.Fatalf("%s: spliced or broken line: %.120s", mode, sc.Text())
				}
				lines = append(lines, sc.Text())
			}
			idx := 0
			for _, l := range lines {
				if idx < len(written) && l == written[idx] {
					idx++
				}
			}
			if idx != len(written) || len(written) == 0 {
				t.Fatalf("%s: agent lines lost: found %d of %d in order", mode, idx, len(written))
			}
			if mode != "force" {
				var be *safewrite.BusyError
				if !errors.As(err, &be) || (mode == "live" && be.Reason != "live") || (mode == "changed" && be.Reason != "changed") {
					t.Fatalf("%s: got %v (%+v)", mode, err, out)
				}
				if bytes.Contains(after, []byte(`"compact"`)) {
					t.Fatalf("%s: marker written", mode)
				}
				continue
			}
			if err != nil || out.Status != StatusCompacted {
				t.Fatalf("--force: %+v %v", out, err)
			}
			// Every agent line was written after ctxc read the file: each is in the reloaded
			// context, whether it landed before the marker (copied after the tail) or after.
			_, msgs, err := transcript.LoadFile(p, transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]int{}
			for _, m := range msgs {
				seen[m.TextContent()]++
			}
			for _, l := range written {
				if text := gjson.Get(l, "content").String(); seen[text] != 1 {
					t.Fatalf("agent line in the reloaded context %d times: %s", seen[text], l)
				}
			}
		}
	}
	t.Logf("%d trials × (live guard, changed while summarizing, --force): no agent line lost or spliced", trials)
}

// TestConcurrentWriterNative: an agent's own file that its agent writes while ctxc summarizes is
// never appended to, with or without --force (the agent's records would continue from the
// history, not from the compaction): ctxc reports it busy and the agent's lines are all there,
// whole and in order.
func TestConcurrentWriterNative(t *testing.T) {
	agentLine := map[string]string{
		"claude-code": `{"type":"user","uuid":"w%d","parentUuid":"a99","sessionId":"9b2c6f0e-1d4a-4c7e-8f3b-2a5d6e7f8a9b","cwd":"/w","message":{"role":"user","content":"agent line %d"}}`,
		"codex":       `{"timestamp":"2025-10-01T09:00:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"agent line %d %d"}]}}`,
		"pi":          `{"type":"message","id":"w%07d","parentId":"z9999999","timestamp":"2026-05-12T02:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"agent line %d"}],"timestamp":9}}`,
	}
	for name, content := range testsessions.Agent() {
		for _, force := range []bool{false, true} {
			p := writeOld(t, name+".jsonl", content)
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var written []string
			var once sync.Once
			start := func() {
				once.Do(func() {
					wg.Add(1)
					go agentWriterOf(t, p, stop, &wg, &written, func(i int) string { return fmt.Sprintf(agentLine[name], i, i) })
					time.Sleep(10 * time.Millisecond)
				})
			}
			o := baseOptions()
			o.Force = force
			o.Client = slowCompleter{delay: 30 * time.Millisecond, onCall: start}
			out, err := File(context.Background(), p, o)
			start()
			time.Sleep(10 * time.Millisecond)
			close(stop)
			wg.Wait()
			var be *safewrite.BusyError
			if !errors.As(err, &be) || be.Reason != "changed" {
				t.Fatalf("%s force=%v: got %v (%+v), want busy (changed)", name, force, err, out)
			}
			// What the user reads does not send them back to the --force they just gave.
			if !be.Agent || strings.Contains(err.Error(), "use --force") {
				t.Fatalf("%s force=%v: %q: want the message of an agent's file, which --force does not append to", name, force, err)
			}
			after, _ := os.ReadFile(p)
			if want := content + strings.Join(written, "\n") + "\n"; string(after) != want {
				t.Fatalf("%s force=%v: the file is not the history plus the agent's lines", name, force)
			}
		}
	}
}
