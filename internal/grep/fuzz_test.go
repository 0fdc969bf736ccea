package grep

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/strscan"
	"github.com/tidwall/gjson"
)

// FuzzGrepPrefilter: on any file and pattern, the prefiltered search (only lines holding the
// pattern's literal are decoded) finds exactly what decoding every line finds, or both fail;
// and so does a search of only the ranges of lines that hold the literal (an index's blocks),
// in a file that spells nothing as an escape.
func FuzzGrepPrefilter(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "fixtures", "*.jsonl"))
	for i, p := range files {
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			pats := []string{"the", "main.go", `fo[or]\w+`, "ls", `"`, "café"}
			f.Add(b, pats[i%len(pats)], i%2 == 0, i%3 == 0)
		}
	}
	f.Add([]byte(`{"role":"user","content":"caf\u00e9 \"quoted\" \\ path\/x"}`+"\n"), `café "quoted"`, true, false)
	// Claude Code records, read by claudeLine without DecodeRecord: what it must agree on.
	rec := func(typ, msg, extra string) string {
		return `{"parentUuid":null,"isSidechain":false,"sessionId":"s1","type":` + typ + `,"message":` + msg + extra + `,"uuid":"u1"}` + "\n"
	}
	long := strings.Repeat(`word \"q\"\n\t`, 200)
	// Escapes and characters of every length where a window of the text may start or end.
	mixed := strings.Repeat(`é\ud83d\ude00\\ \u00e9x\n`, 90)
	claude := rec(`"user"`, `{"role":"user","content":"plain context.Context text"}`, "") +
		rec(`"user"`, `{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"`+long+`context.Context `+long+`"}]}`, `,"toolUseResult":{"stdout":"context.Context"}`) +
		rec(`"assistant"`, `{"role":"assistant","content":[{"type":"text","text":"a context"},{"type":"tool_use","id":"t2","name":"Read","input":{"path":"context.Context"}}]}`, "") +
		rec(`"assistant"`, `{"content":[{"type":"thinking","thinking":"context\u002eContext"},{"type":"image"},"context.Context"]}`, "") +
		rec(`"user"`, `{"role":"user","content":"first","content":"second context.Context"}`, "") +
		rec(`"us\u0065r"`, `{"role":"user","content":"escaped type context.Context"}`, "") +
		rec(`"user"`, `{"role":"user","content":[{"type":"tool_r\u0065sult","content":"context.Context"}]}`, "") +
		rec(`"user"`, `{"role":"user","content":"\u0063ontext.Context \ud83d\ude00 context.Context"}`, "") +
		rec(`"assistant"`, `{"role":"assistant","content":[{"type":"text","text":"`+mixed+`context.Context`+mixed[:7]+`context`+mixed+`"}]}`, "") +
		rec(`"assistant"`, `{"role":"assistant","content":[{"type":"tool_use","id":"t3","name":"Bash","input":{ "command" : "go doc context.Context" , "n": 12 ,"deep":{"a":["context.Context",1, {"b":"}"}]},"t":true,"z":null}}]}`, "") +
		rec(`"assistant"`, `{"role":"assistant","content":[{"type":"tool_use","id":"t4","name":"Ed\"it","input":{"old\nkey":"line1\ncontext.Context\t\"q\"","e":{}},"name":"Other"}]}`, "") +
		rec(`"assistant"`, `{"role":"assistant","content":[{"type":"server_tool_use","id":"t5","name":"web_search","input":{}},{"type":"tool_use","name":"Grep","input":{"pattern":"context\\.Context","x":[ 1 , 2 ]}},{"type":"tool_use","name":"U","input":{"q":"\u00e9 \ud83d\ude00 context.Context"}}]}`, "") +
		rec(`"assistant"`, `{"role":"assistant","content":[{"type":"tool_use","name":"S","input":"context.Context"},{"type":"tool_use","name":"A","input":["context.Context"]},{"type":"text","text":"after context.Context"}]}`, "") +
		// Occurrences of a literal that are in no match before the one that is: one, two,
		// and more than the windows tried, far apart and close together.
		rec(`"user"`, `{"role":"user","content":[{"type":"tool_result","content":"Context context `+long+`"},{"type":"tool_result","content":"context `+long+` Context context `+mixed+`context.Context `+long+`"}]}`, "") +
		rec(`"user"`, `{"role":"user","content":[{"type":"tool_result","content":"`+strings.Repeat("context Context ", 40)+long+`context.Context"}]}`, "") +
		rec(`"user"`, `{"role":"user","content":[{"type":"tool_result","content":"`+strings.Repeat("context "+long[:400]+" ", 6)+`context.Context"}]}`, "") +
		rec(`"assistant"`, `{"role":"assistant","content":[{"type":"tool_use","name":"V","input":{"q":"\u0063ontext.Context \u0043ONTEXT.\u0063ontext"}}]}`, "") +
		rec(`"user"`, `{"role":"user","content":"\u0063ontext.Context only escaped"}`, "") +
		rec(`"assistant"`, `{"role":"assistant","content":[{"type":"thinking","t\u0068inking":"escaped key read context.Context"}]}`, "") +
		`{"type":"user","isSidechain":true,"message":{"role":"user","content":"context.Context sidechain"}}` + "\n" +
		`{"type":"user","message":{"role":"user","content":"context.Context not JSON"}` + "\n"
	for _, pat := range []string{`context.Context`, `context`, `Context\s+\w+`, `q"\s+word`, `(?i)CONTEXT.context`} {
		f.Add([]byte(claude), pat, false, false)
	}
	// Plain messages, read by plainLine without DecodeRecord: its shape and what it leaves
	// to the decoder.
	plain := "\ufeff" + `{"role":"user","content":"plain context.Context text"}` + "\r\n" +
		`{"role":"assistant","content":"` + long + `context.Context` + mixed + `"}` + "\n" +
		`{"role":"system","content":"sys context.Context"}` + "\n" +
		`{"role":"developer","content":"dev context.Context","name":"x"}` + "\n" +
		`{"role":"tool","tool_call_id":"c1","content":"out context.Context"}` + "\n" +
		`{"role":"function","name":"f","content":"fn context.Context"}` + "\n" +
		`{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"q\":\"context.Context\"}"}}]}` + "\n" +
		`{"role":"assistant","content":"first","content":"second context.Context"}` + "\n" +
		`{"role":"user","c\u006fntent":"escaped key context.Context"}` + "\n" +
		`{"role":"us\u0065r","content":"escaped role context.Context"}` + "\n" +
		`{"role":"user","content":[{"type":"text","text":"array context.Context"}]}` + "\n" +
		`{"message":{"role":"user","content":"wrapped context.Context"}}` + "\n" +
		`{"compact":{"summary":"sum context.Context","tail_lines":1},"role":"user"}` + "\n" +
		`{"role":"user","content":"\u0063ontext.Context escaped"}` + "\n" +
		`{"role":"user","content":"no literal here","meta":"context.Context"}` + "\n" +
		`{"role":"user","content":"not json context.Context"` + "\n" +
		`["context.Context"]` + "\n" + `{"content":"no role context.Context"}` + "\n" +
		`{"role":"assistant","content":"unterminated context.Context"}`
	for _, pat := range []string{`context.Context`, `Context\s+\w+`, `(?i)CONTEXT.context`} {
		f.Add([]byte(plain), pat, false, false)
	}
	f.Add([]byte(claude), "context.Context", true, true)
	// pi entries, read by piLine without DecodeRecord: each shape it reads and each it leaves
	// to the decoder.
	pe := func(msg string) string {
		return `{"type":"message","id":"e1","parentId":null,"timestamp":"t","message":` + msg + `}` + "\n"
	}
	pi := `{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/w"}` + "\n" +
		pe(`{"role":"user","content":[{"type":"text","text":"user context.Context"},{"type":"image","data":"context.Context"}]}`) +
		pe(`{"role":"user","content":"string context.Context"}`) +
		pe(`{"role":"custom","content":[{"type":"text","text":"custom context.Context"}]}`) +
		pe(`{"role":"hookMessage","content":[{"type":"note","text":"opaque context.Context"}]}`) +
		pe(`{"role":"user","content":[{"type":"thinking","thinking":"user thinking context.Context"}]}`) +
		pe(`{"role":"assistant","content":[{"type":"thinking","thinking":"`+long+`context.Context"},{"type":"text","text":"said context.Context"}],"stopReason":"error"}`) +
		pe(`{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"bash","arguments":{"command":"go doc context.Context","n":3}}]}`) +
		pe(`{"role":"assistant","content":[{"type":"toolCall","id":"t2","name":"bash","arguments":{"q":"\u00e9 context.Context"}},{"type":"toolCall","name":7,"arguments":{"q":"context.Context"}}]}`) +
		pe(`{"role":"assistant","content":[{"type":"toolCall","name":"x","arguments":"context.Context"},{"type":"text","text":1}]}`) +
		pe(`{"role":"assistant","content":[{"type":"toolCall","name":"s","arguments":{"q":"\ud800 \udc00\ud800 context.Context","\u00e9":"context.Context"}}]}`) +
		pe(`{"role":"assistant","content":"assistant string context.Context"}`) +
		pe(`{"role":"assistant","content":[{"type":"text","text":"first","text":"second context.Context"}]}`) +
		pe(`{"role":"assistant","content":[{"type":"te\u0078t","text":"escaped type context.Context"}]}`) +
		pe(`{"role":"assistant","content":[{"type":"text","t\u0065xt":"escaped key context.Context"}]}`) +
		pe(`{"role":"assistant","content":["bare context.Context",{"type":"text","text":null}]}`) +
		pe(`{"role":"toolResult","toolCallId":"t1","toolName":"bash","content":[{"type":"text","text":"out `+mixed+`context.Context"}]}`) +
		pe(`{"role":"toolResult","content":[{"type":"text","text":"two Context"},{"type":"text","text":"parts context.Context"}]}`) +
		pe(`{"role":"toolResult","content":[{"type":"input_text","text":"input context.Context"}]}`) +
		pe(`{"role":"toolResult","content":[{"type":"image","text":"image context.Context"}]}`) +
		pe(`{"role":"toolResult","content":["part context.Context"]}`) +
		pe(`{"role":"toolResult","content":"string result context.Context"}`) +
		pe(`{"role":"toolResult","content":{"text":"object context.Context"}}`) +
		pe(`{"role":"to\u006flResult","content":"escaped role context.Context"}`) +
		pe(`{"role":"bashExecution","command":"go doc context.Context","output":"context.Context"}`) +
		pe(`{"role":"compactionSummary","summary":"sum context.Context"}`) +
		pe(`{"role":"user","content":"\u0063ontext.Context escaped"}`) +
		pe(`{"role":"user"}`) + pe(`{"content":"no role context.Context"}`) + pe(`{"role":"user","content":null}`) +
		pe(`{"role":"user","content":{"a":"object context.Context"}}`) +
		pe(`{"role":"assistant","content":[1,{"type":"other"},{"type":"toolCall","name":"n","arguments":{}},{"type":"text","text":null},{"type":"text","text":"after context.Context"}]}`) +
		pe(`{"role":"assistant","content":[{"type":"text","i\u0064":"x","text":"key escaped context.Context"}]}`) +
		pe(`{"role":"assistant","content":[{"type":"thinking","t\u0068inking":"escaped key read context.Context"}]}`) +
		pe(`{"role":"assistant","content":[{"type":"text","text":["array context.Context"]}]}`) +
		pe(`{"role":"assistant","content":[{"type":"text","text":{"deep":{"deeper":"context.Context"}}}]}`) +
		pe(`{"role":"toolResult","content":[]}`) + pe(`{"role":"toolResult","content":null}`) +
		pe(`{"role":"toolResult","content":[{"text":"untyped context.Context"}]}`) +
		pe(`{"role":"toolResult","content":[{"type":"text","text":7}],"x":"context.Context"}`) +
		pe(`{"role":"toolResult","content":[{"type":"text","text":["part context.Context"]}]}`) +
		`{"type":"message","message":{"role":"user","content":"first"},"message":{"role":"user","content":"twice context.Context"}}` + "\n" +
		`{"type":"compaction","summary":"compacted context.Context","firstKeptEntryId":"e1"}` + "\n" +
		`{"type":"branch_summary","summary":"branch context.Context"}` + "\n" +
		`{"type":"custom_message","content":"custom entry context.Context"}` + "\n" +
		`{"type":"message","message":{"role":"user","content":"not json context.Context"}` + "\n"
	for _, pat := range []string{`context.Context`, `Context\s+\w+`, `(?i)CONTEXT.context`} {
		f.Add([]byte(pi), pat, false, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, pattern string, fixed, fold bool) {
		p, err := Compile(pattern, fixed, fold)
		if err != nil || pattern == "" {
			return
		}
		path := filepath.Join(t.TempDir(), "s.jsonl")
		os.WriteFile(path, data, 0o644)
		run := func(opts Options) ([]string, error) {
			var out []string
			err := File(path, p, opts, func(h Hit) error {
				out = append(out, fmt.Sprintf("%d %s %s", h.Line, h.Role, h.Snippet.Text))
				return nil
			})
			return out, err
		}
		fast, err1 := run(Options{})
		full, err2 := run(Options{Indexed: true})
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("prefiltered err %v, full err %v", err1, err2)
		}
		if err1 == nil && !reflect.DeepEqual(fast, full) {
			t.Fatalf("pattern %q fixed %v fold %v: prefiltered %v, full %v", pattern, fixed, fold, fast, full)
		}
		if err1 == nil && p.Literal() != nil && !bytes.Contains(data, []byte{'\\'}) {
			rs := Ranges{Size: int64(len(data)), Parts: lineRanges(data, string(p.Literal()), 2)}
			var ranged []string
			err := FileRanges(path, p, Options{}, rs, func(h Hit) error {
				ranged = append(ranged, fmt.Sprintf("%d %s %s", h.Line, h.Role, h.Snippet.Text))
				return nil
			})
			if err != nil || !reflect.DeepEqual(ranged, fast) {
				t.Fatalf("pattern %q fixed %v fold %v: ranges %+v: %v (%v), whole %v", pattern, fixed, fold, rs.Parts, ranged, err, fast)
			}
		}
		// The portable loops (no kernels) find the same.
		was := strscan.UseKernels(false)
		portable, err3 := run(Options{})
		strscan.UseKernels(was)
		if (err1 == nil) != (err3 == nil) || err1 == nil && !reflect.DeepEqual(fast, portable) {
			t.Fatalf("pattern %q fixed %v fold %v: with kernels %v (%v), without %v (%v)", pattern, fixed, fold, fast, err1, portable, err3)
		}
	})
}

// FuzzLineShape: the walk that claudeLine reads records with accepts exactly the lines the
// transcript readers' validation accepts.
func FuzzLineShape(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e3,"x\u00e9\"",true,false,null,{}],"b":{}}`, `{"a":}`, `[1,]`, ` {"k" : "v"} `, `"\u12"`, `{"a":"\x"}`, "{\"a\":\"\t\"}",
		"{\"a\":1}\n{\"b\":", "{\"a\":\"x\ny\"}", "{\"a\":1\n}", "{\"a\":1} \r\n", "[\n]", "\n",
		`{"a":[{"b\\u0063":1}]}`, `{"a\\"b":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if len(line) == 0 {
			return
		}
		// The line, and the line inside long strings and a long array (where the vector
		// kernels take over), with the kernels and without; gjson is the reference.
		pad := strings.Repeat("p", 70)
		for _, in := range []string{string(line), `"` + string(line) + pad + `"`, `"` + pad + string(line) + `"`,
			"[" + strings.Repeat(string(line)+",", 8) + string(line) + "]"} {
			for _, kernels := range []bool{true, false} {
				was := strscan.UseKernels(kernels)
				_, end, esc, ok := lineShape(in, nil, func(byte) bool { return false })
				strscan.UseKernels(was)
				// A '\n' ends the line.
				line := in
				if nl := strings.IndexByte(in, '\n'); nl >= 0 {
					line = in[:nl]
				}
				if want := gjson.Valid(line); ok != want {
					t.Fatalf("%q (kernels %v): lineShape %v, gjson.Valid %v", in, kernels, ok, want)
				}
				if ok && end != len(line) {
					t.Fatalf("%q (kernels %v): lineShape ends the line at %d, not %d", in, kernels, end, len(line))
				}
				// In valid JSON every backslash starts an escape (in a string): the first and
				// last \u escapes are found by stepping over escapes.
				first, last := -1, -1
				for j := 0; ok && j+1 < len(line); j++ {
					if line[j] == '\\' {
						if line[j+1] == 'u' {
							last = j
							if first < 0 {
								first = j
							}
						}
						j++
					}
				}
				if ok && esc.keys != keyEscaped(gjson.Parse(line)) {
					t.Fatalf("%q (kernels %v): keys escaped %v", in, kernels, esc.keys)
				}
				if ok && (esc.first != first || first >= 0 && esc.last != last) {
					t.Fatalf("%q (kernels %v): \\u escapes from %d to %d, want %d to %d", in, kernels, esc.first, esc.last, first, last)
				}
			}
		}
	})
}

// keyEscaped reports whether a key of v, at any depth, is written with an escape.
func keyEscaped(v gjson.Result) bool {
	found := false
	if v.IsObject() || v.IsArray() {
		v.ForEach(func(k, x gjson.Result) bool {
			found = strings.IndexByte(k.Raw, '\\') >= 0 || keyEscaped(x)
			return !found
		})
	}
	return found
}

// TestEscapeStart: decoding a JSON string's text from escapeStart(i), for every i, gives the
// end of the whole text's decoding, from at most i.
func TestEscapeStart(t *testing.T) {
	tokens := []string{`a`, `é`, `😀`, `\n`, `\\`, `\"`, `\/`, `\u00e9`, `\u0041`, `\ud83d\ude00`, `\uD83D\uDE00`, `\\u0041`, `\\\\`, `\ud83d`, `\ude00`}
	r := rand.New(rand.NewSource(3))
	checked := 0
	for round := 0; round < 300; round++ {
		var b strings.Builder
		for k := r.Intn(12); k >= 0; k-- {
			b.WriteString(tokens[r.Intn(len(tokens))])
		}
		s := b.String()
		whole := jsonl.Unescape(s)
		for i := 0; i <= len(s); i++ {
			from := escapeStart(s, i)
			if from > i {
				t.Fatalf("%q at %d: moved forward to %d", s, i, from)
			}
			if part := jsonl.Unescape(s[from:]); !strings.HasSuffix(whole, part) {
				t.Fatalf("%q from %d (asked %d): %q is not the end of %q", s, from, i, part, whole)
			}
			checked++
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d positions", checked)
	}
}
