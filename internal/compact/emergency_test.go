package compact

import (
	"runtime"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/estimate"
	"github.com/ctxc/ctxc/internal/msglist"
	"github.com/ctxc/ctxc/internal/transcript"
)

func textMsg(role transcript.Role, text string) transcript.Message {
	return transcript.Message{Role: role, Blocks: []transcript.Block{{Kind: transcript.BlockText, Text: text, Chars: estimate.Chars(text)}}}
}

func callMsg(ids ...string) transcript.Message {
	m := transcript.Message{Role: transcript.RoleAssistant}
	for _, id := range ids {
		m.Blocks = append(m.Blocks, transcript.Block{Kind: transcript.BlockToolCall, ID: id, Name: "read", Args: "{}", Chars: 6})
	}
	return m
}

func resultMsg(id string, chars int) transcript.Message {
	t := strings.Repeat("r", chars)
	return transcript.Message{Role: transcript.RoleTool, Line: 1, Blocks: []transcript.Block{{Kind: transcript.BlockToolResult, ID: id, Text: t, Chars: chars}}}
}

// TestShrinkTailKeepsPairs: however small the budget, the emergency tail never starts between a
// call and its results (parallel calls with their results in separate messages included), and
// it keeps the last turn with a large result rather than giving it to the summary.
func TestShrinkTailKeepsPairs(t *testing.T) {
	ms := []transcript.Message{
		textMsg(transcript.RoleUser, "task"),
		callMsg("a"), resultMsg("a", 400),
		textMsg(transcript.RoleUser, "next"),
		callMsg("b", "c"), resultMsg("b", 50000), resultMsg("c", 30000),
		textMsg(transcript.RoleAssistant, "done"),
	}
	for _, budget := range []int{0, 10, 500, 2000, 100000} {
		for _, resultsOnly := range []bool{false, true} {
			z := ShrinkTail(ms, Zones{HeadEnd: 1, TailStart: 1, N: len(ms)}, budget, resultsOnly)
			if !pairSafeCut(ms, z.TailStart) {
				t.Errorf("budget %d: tail starts at %d, between a call and its results", budget, z.TailStart)
			}
			if z.TailStart > 4 && budget >= 2000 {
				t.Errorf("budget %d: the last turn's call (message 4) left the tail: starts at %d", budget, z.TailStart)
			}
			cuts, kept := PlanCuts(ms, z.HeadEnd, z.TailStart, budget, resultsOnly)
			if budget >= 2000 && kept > budget {
				t.Errorf("budget %d: kept %d tokens after %d cuts", budget, kept, len(cuts))
			}
			cp := append([]transcript.Message(nil), ms...)
			ApplyCuts(cp, cuts, "s.jsonl")
			for _, c := range cuts {
				b := cp[c.Msg].Blocks[c.Block]
				if !cp[c.Msg].Edited || !strings.Contains(b.Text, "the whole text is in s.jsonl line 1") || b.Chars != c.CharsAfter {
					t.Errorf("cut %+v not applied: %q", c, b.Text[:min(80, len(b.Text))])
				}
			}
			if _, rep := msglist.PairToolCalls(cp[z.TailStart:]); rep.Placeholders+rep.DroppedResults > 0 {
				t.Errorf("budget %d: the tail needs repair: %+v", budget, rep)
			}
		}
	}
}

// TestRuneEnds: the ends of a text that an emergency cut keeps are those of its []rune
// conversion (invalid bytes as U+FFFD, one each), whatever the text.
func TestRuneEnds(t *testing.T) {
	for _, text := range []string{
		"", "short", strings.Repeat("é🙂x", 40), "ab\xffcd\xf0\x9f\x99ef\xed\xa0\x80gh" + strings.Repeat("日", 30) + "\xc3",
		strings.Repeat("\x80", 50),
	} {
		for _, ends := range [][2]int{{0, 0}, {1, 1}, {3, 2}, {10, 5}, {200, 200}} {
			r := []rune(text)
			h, tl, n := runeEnds(text, ends[0], ends[1])
			if n != len(r) {
				t.Fatalf("runeEnds(%q) counts %d, []rune %d", text, n, len(r))
			}
			if n <= ends[0]+ends[1] {
				continue
			}
			if h != string(r[:ends[0]]) || tl != string(r[n-ends[1]:]) {
				t.Errorf("runeEnds(%q, %v) = %q, %q; want %q, %q", text, ends, h, tl, string(r[:ends[0]]), string(r[n-ends[1]:]))
			}
		}
	}
}

// TestApplyCutsAllocates: cutting a tool result of 20 MB to its ends costs the shortened text,
// not the text as runes (four bytes a character, 80 MB).
func TestApplyCutsAllocates(t *testing.T) {
	text := strings.Repeat("line é \"q\"\n", 20<<20/12)
	ms := []transcript.Message{{Role: transcript.RoleTool, Line: 3, Blocks: []transcript.Block{{Kind: transcript.BlockToolResult, ID: "t1", Text: text}}}}
	cuts := []transcript.Cut{{Msg: 0, Block: 0}}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ApplyCuts(ms, cuts, "s.jsonl")
	runtime.ReadMemStats(&after)
	if got := ms[0].Blocks[0].Text; len(got) > 10000 || !strings.HasPrefix(got, "line é") {
		t.Fatalf("not cut: %d bytes", len(got))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("cutting a %d-byte text allocated %d bytes, want under 1 MiB", len(text), alloc)
	}
}
