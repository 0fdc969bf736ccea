package jsonl

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/estimate"
	"github.com/ctxc/ctxc/internal/strscan"
	"github.com/tidwall/gjson"
)

var escapeHeavy = func() string {
	b, _ := json.Marshal(strings.Repeat("     1\tfunc error(ctx context.Context) error {\n2025-06-01T12:00:00Z INFO id=0a0b path=\"/api/run\" naïve 日本 🙂\n", 2000))
	return string(b)
}()

func BenchmarkJSONStringChars(b *testing.B) {
	b.SetBytes(int64(len(escapeHeavy)))
	for i := 0; i < b.N; i++ {
		StringChars(escapeHeavy[1 : len(escapeHeavy)-1])
	}
}

func TestJSONStringCharsTable(t *testing.T) {
	for _, s := range []string{"", "a", "abcdefgh", "abcdefghi", `\n`, `a\\b`, `\\\\`, `\"quoted\"`, `\u00e9t\u00e9`,
		`\ud83d\ude00`, `x\ud83d\ude00y`, "naïve café", "日本語のテキスト", "🙂🚀", `\\u0041`, `tab\there and more text after`} {
		want := estimate.Chars(gjson.Parse(`"` + s + `"`).String())
		if got := StringChars(s); got != want {
			t.Errorf("StringChars(%q) = %d, want %d", s, got, want)
		}
	}
}

// FuzzJSONScan checks the hand-written scanner against gjson on valid JSON: the keys and raw
// values each and walk yield, and the character count of every string.
func FuzzJSONScan(f *testing.F) {
	f.Add(`{"a":"x\ny","b":[1,{"c":"\u00e9\\"}],"d":null,"e":true}`)
	f.Add(`{"role":"user","content":[{"type":"text","text":"hi \"there\""}]}`)
	f.Add(`[ "a" , {"k" : [ ] } , 3.5e2 ]`)
	f.Fuzz(func(t *testing.T, s string) {
		if !gjson.Valid(s) {
			return
		}
		doc := gjson.Parse(s)
		if !doc.IsObject() && !doc.IsArray() {
			return
		}
		var want []string
		doc.ForEach(func(k, v gjson.Result) bool {
			want = append(want, k.Raw+"="+v.Raw)
			return true
		})
		var got, walked []string
		Value(strings.TrimSpace(s)).Each(func(k string, v Value) bool {
			kk := ""
			if doc.IsObject() {
				kk = `"` + k + `"`
			}
			got = append(got, kk+"="+string(v))
			return true
		})
		Value(strings.TrimSpace(s)).Walk(func(k string, rest Value) int {
			v, n := rest.Prefix()
			kk := ""
			if doc.IsObject() {
				kk = `"` + k + `"`
			}
			walked = append(walked, kk+"="+string(v))
			return n
		})
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") || strings.Join(walked, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("each/walk disagree with gjson on %q:\n got %q\nwalk %q\nwant %q", s, got, walked, want)
		}
		doc.ForEach(func(_, v gjson.Result) bool {
			var dec string
			if v.Type == gjson.String && strings.ToValidUTF8(v.Raw, "") == v.Raw && json.Unmarshal([]byte(v.Raw), &dec) == nil {
				// Also inside a long string, where the vector kernels take over, both ways.
				pad := strings.Repeat("p", 70)
				long := `"` + pad + v.Raw[1:len(v.Raw)-1] + pad + `"`
				kernelsBothWays(func() {
					if got, want := Value(v.Raw).Chars(), estimate.Chars(dec); got != want {
						t.Fatalf("chars(%s) = %d, want %d", v.Raw, got, want)
					}
					if got, want := Value(long).Chars(), estimate.Chars(dec)+2*len(pad); got != want {
						t.Fatalf("chars(%s) = %d, want %d", long, got, want)
					}
					if got := SkipString(long, 0); got != len(long) {
						t.Fatalf("SkipString(%s) = %d, want %d", long, got, len(long))
					}
				})
			}
			return true
		})
	})
}

// FuzzUnescape checks the decoder and the character count against encoding/json on valid
// strings (gjson differs on a high surrogate followed by a non-surrogate escape).
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{`"a\nb"`, `"\u00e9\ud83d\ude00"`, `"\ud800x"`, `"\\\"\/\b\f\r\t"`, `"plain"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = strings.TrimSpace(s) // values reach str() exactly, without surrounding space
		if !gjson.Valid(s) || gjson.Parse(s).Type != gjson.String || strings.ToValidUTF8(s, "") != s {
			return
		}
		var want string
		if err := json.Unmarshal([]byte(s), &want); err != nil {
			return
		}
		if got := Value(s).Str(); got != want {
			t.Fatalf("str(%s) = %q, want %q", s, got, want)
		}
		if got := Value(s).Chars(); got != estimate.Chars(want) {
			t.Fatalf("chars(%s) = %d, want %d", s, got, estimate.Chars(want))
		}
	})
}

// FuzzValidJSON: Valid gives gjson.ValidBytes's answer on every input.
func FuzzValidJSON(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, ` {"a":[1,2.5e-3,true,false,null,"x\n\u00e9"]} `, `{"a":}`, `[1,]`, `{"a" 1}`,
		`"\x"`, `"` + "\x01" + `"`, `-0.1E+5`, `01`, `1.`, `[[[[`, `{"a":{"b":[{}]}}x`, `"abcdefghijklmnop\"q"`, `tru`, "\t\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// b itself, and b inside long strings and a long array, where the vector kernels take
		// over; with the kernels and without.
		pad := strings.Repeat("p", 70)
		for _, in := range []string{string(b), `"` + string(b) + pad + `"`, `"` + pad + string(b) + `"`,
			"[" + strings.Repeat(string(b)+",", 8) + string(b) + "]"} {
			kernelsBothWays(func() {
				if got, want := Valid([]byte(in)), gjson.Valid(in); got != want {
					t.Fatalf("Valid(%q) = %v, gjson.Valid = %v", in, got, want)
				}
			})
		}
	})
}

// kernelsBothWays runs fn with the vector kernels (where the CPU has them) and without.
func kernelsBothWays(fn func()) {
	fn()
	was := strscan.UseKernels(false)
	defer strscan.UseKernels(was)
	fn()
}

func TestValidJSONDeepNesting(t *testing.T) {
	deep := strings.Repeat("[", 10_000_000)
	if Valid([]byte(deep)) {
		t.Fatal("unclosed arrays are valid?")
	}
	if !Valid([]byte(deep[:100000] + strings.Repeat("]", 100000))) {
		t.Fatal("deep but closed arrays are invalid?")
	}
}
