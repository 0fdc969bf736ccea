package strscan

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// refPlainEnd is PlainEnd's rule one byte at a time: the first quote, control character, or
// backslash that does not start a two-byte escape, at or after i (len(s) if none).
func refPlainEnd(s string, i int) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"' || c < 0x20:
			return i
		case c == '\\':
			if i+1 >= len(s) || !SimpleEscape[s[i+1]] {
				return i
			}
			i += 2
			continue
		}
		i++
	}
	return i
}

// refQuoteEnd is QuoteEnd's rule one byte at a time: the first quote no backslash escapes.
func refQuoteEnd(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case '"':
			return i
		case '\\':
			i += 2
			continue
		}
		i++
	}
	return min(i, len(s))
}

// boundaries are the indexes refPlainEnd's walk from i passes through: where a kernel may stop.
func boundaries(s string, i int) map[int]bool {
	at := map[int]bool{i: true}
	for i < len(s) {
		c := s[i]
		if c == '"' || c < 0x20 || (c == '\\' && (i+1 >= len(s) || !SimpleEscape[s[i+1]])) {
			break
		}
		if c == '\\' {
			i += 2
		} else {
			i++
		}
		at[i] = true
	}
	return at
}

// refCountChars counts the characters of s[:n] as a JSON string's text, one byte at a time.
func refCountChars(s string) int {
	n := 0
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == 'u':
			i += 6 // the kernel never counts past a \u: enough for the test
		case s[i] == '\\':
			i += 2
		default:
			if s[i]&0xC0 != 0x80 {
				n++
			}
			i++
			continue
		}
		n++
	}
	return n
}

// kernel is one implementation of PlainEnd and CountChars.
type kernel struct {
	plain func(string, int) int
	count func(string) (int, int)
	quote func(string, int) int
}

// kernels lists the implementations this machine can run, by name.
func kernels() map[string]kernel {
	k := map[string]kernel{"default": {PlainEnd, CountChars, QuoteEnd}}
	addArchKernels(k)
	return k
}

func checkPlainEnd(t *testing.T, name string, plain func(string, int) int, s string, i int) {
	t.Helper()
	got, want := plain(s, i), refPlainEnd(s, i)
	if got < i || got > want || !boundaries(s, i)[got] {
		t.Fatalf("%s PlainEnd(%q, %d) = %d: not a boundary of the plain run (it ends at %d)", name, s, i, got, want)
	}
	if got < want && len(s)-got > MinLen && haveKernels.Load() {
		t.Fatalf("%s PlainEnd(%q, %d) = %d stopped early: the run ends at %d", name, s, i, got, want)
	}
}

func checkQuoteEnd(t *testing.T, name string, quote func(string, int) int, s string, i int) {
	t.Helper()
	got, want := quote(s, i), refQuoteEnd(s, i)
	if got < i || got > want || !quoteBoundaries(s, i)[got] {
		t.Fatalf("%s QuoteEnd(%q, %d) = %d: not between characters before the quote at %d", name, s, i, got, want)
	}
	if got < want && len(s)-got > MinLen && haveKernels.Load() {
		t.Fatalf("%s QuoteEnd(%q, %d) = %d stopped early: the quote is at %d", name, s, i, got, want)
	}
}

func checkCountChars(t *testing.T, name string, count func(string) (int, int), s string) {
	t.Helper()
	chars, n := count(s)
	if n < 0 || n > len(s) || !countBoundaries(s)[n] {
		t.Fatalf("%s CountChars(%q) stopped at %d: not between characters", name, s, n)
	}
	if want := refCountChars(s[:n]); chars != want {
		t.Fatalf("%s CountChars(%q) = %d over %d bytes, want %d", name, s, chars, n, want)
	}
	atU := n < len(s) && s[n] == '\\' && (n+1 == len(s) || s[n+1] == 'u')
	if n < len(s) && !atU && len(s)-n > MinLen && haveKernels.Load() {
		t.Fatalf("%s CountChars(%q) stopped early at %d", name, s, n)
	}
}

// quoteBoundaries are the indexes refQuoteEnd's walk from i passes through.
func quoteBoundaries(s string, i int) map[int]bool {
	at := map[int]bool{i: true}
	for i < len(s) && s[i] != '"' {
		if s[i] == '\\' {
			i += 2
		} else {
			i++
		}
		at[i] = true
	}
	return at
}

// countBoundaries are the indexes between characters (escapes whole) of a JSON string's text.
func countBoundaries(s string) map[int]bool {
	at := map[int]bool{0: true}
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == 'u':
			i += 6
		case s[i] == '\\':
			i += 2
		default:
			i++
		}
		at[i] = true
	}
	return at
}

var pieces = []string{"a", "b", " ", "é", "日本", "🙂", `\n`, `\"`, `\\`, `\/`, `\u00e9`, `\ud83d\ude00`, `\x`, "\"", "\x01", "\x1f", "\x7f", "\xbf", "\xc0", "\xff", "\\"}

func randomText(r *rand.Rand) string {
	var b strings.Builder
	for n := r.IntN(200); n > 0; n-- {
		if r.IntN(4) == 0 {
			b.WriteString(pieces[r.IntN(len(pieces))])
		} else {
			b.WriteString(strings.Repeat("x", r.IntN(40)))
		}
	}
	return b.String()
}

func TestKernelsAgreeWithReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for name, k := range kernels() {
		for range 1500 {
			s := randomText(r)
			checkCountChars(t, name, k.count, s)
			// Every offset of the text, so every alignment and every distance to its end.
			for i := 0; i <= len(s) && i < 70; i++ {
				checkPlainEnd(t, name, k.plain, s, i)
				if i == 0 || s[i-1] != '\\' {
					checkQuoteEnd(t, name, k.quote, s, i)
				}
			}
		}
		long := strings.Repeat("plain text without escapes ", 100)
		for _, s := range []string{"", long, long + `"`, long + `\n` + long + "\x01", long + `\u0041` + long, long + `\`, strings.Repeat(`\\`, 100), strings.Repeat("é", 100) + `\`} {
			checkCountChars(t, name, k.count, s)
			checkPlainEnd(t, name, k.plain, s, 0)
			checkQuoteEnd(t, name, k.quote, s, 0)
		}
	}
}

func FuzzKernels(f *testing.F) {
	f.Add(strings.Repeat("ab\\ncd é", 10), 3)
	f.Add(strings.Repeat("x", 40)+`\u00e9`+strings.Repeat("y", 40), 0)
	f.Fuzz(func(t *testing.T, s string, i int) {
		if i < 0 || i > len(s) {
			i = 0
		}
		for name, k := range kernels() {
			checkCountChars(t, name, k.count, s)
			checkPlainEnd(t, name, k.plain, s, i)
			checkQuoteEnd(t, name, k.quote, s, 0)
		}
	})
}

var benchText = strings.Repeat("     1\\tfunc error(ctx context.Context) error {\\n2025-06-01T12:00:00Z INFO id=0a0b path=\\\"/api/run\\\" naïve 日本 🙂\\n", 2000)

func BenchmarkPlainEnd(b *testing.B) {
	for name, k := range kernels() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(benchText)))
			for b.Loop() {
				k.plain(benchText, 0)
			}
		})
	}
}

func BenchmarkQuoteEnd(b *testing.B) {
	for name, k := range kernels() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(benchText)))
			for b.Loop() {
				k.quote(benchText, 0)
			}
		})
	}
}

func BenchmarkCountChars(b *testing.B) {
	for name, k := range kernels() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(benchText)))
			for b.Loop() {
				k.count(benchText)
			}
		})
	}
}

// TestPlainRun: PlainRun is PlainEnd's rule to the end, with the kernels and without.
func TestPlainRun(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, on := range []bool{true, false} {
		was := UseKernels(on)
		for range 1000 {
			s := randomText(r)
			for i := 0; i <= len(s) && i < 70; i++ {
				if got, want := PlainRun(s, i), refPlainEnd(s, i); got != want {
					UseKernels(was)
					t.Fatalf("PlainRun(%q, %d) = %d, want %d (kernels %v)", s, i, got, want, on)
				}
			}
		}
		UseKernels(was)
	}
}

// refPair is the first p >= i with the pair at p (both offsets inside b), or -1.
func refPair(b []byte, i int, pr *Pair) int {
	for p := i; p+max(pr.O1, pr.O2) < len(b); p++ {
		x, y := b[p+pr.O1], b[p+pr.O2]
		if (x == pr.C1[0] || x == pr.C1[1]) && (y == pr.C2[0] || y == pr.C2[1]) {
			return p
		}
	}
	return -1
}

// checkPair holds PairScan to refPair: a found position is the first, and positions before
// where it stops hold no pair.
func checkPair(t *testing.T, b []byte, i int, pr *Pair) {
	t.Helper()
	p, found := PairScan(b, i, pr)
	want := refPair(b, i, pr)
	switch {
	case found && p != want:
		t.Fatalf("PairScan(len %d, from %d, %+v) = %d, want %d", len(b), i, *pr, p, want)
	case !found && (p < i || p > len(b) || (want >= 0 && want < p)):
		t.Fatalf("PairScan(len %d, from %d, %+v) stopped at %d, first pair at %d", len(b), i, *pr, p, want)
	}
}

func TestPairScan(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, kernels := range []bool{true, false} {
		was := UseKernels(kernels)
		for n := 0; n < 3000; n++ {
			b := make([]byte, r.IntN(400))
			for k := range b {
				b[k] = "abcdeABCDE xy"[r.IntN(13)]
			}
			pr := &Pair{O1: r.IntN(20), O2: r.IntN(20), C1: [2]byte{'a', 'A'}, C2: [2]byte{'x', 'x'}}
			if r.IntN(3) == 0 {
				pr.C2 = [2]byte{'y', 'E'}
			}
			for i := 0; i <= len(b); i += 1 + r.IntN(7) {
				checkPair(t, b, i, pr)
			}
		}
		UseKernels(was)
	}
}

func FuzzPairScan(f *testing.F) {
	f.Add([]byte(strings.Repeat("transcript session ", 20)), 0, 3, 9, byte('n'), byte('N'), byte('p'), byte('p'))
	f.Fuzz(func(t *testing.T, b []byte, i, o1, o2 int, a1, b1, a2, b2 byte) {
		if i < 0 || i > len(b) || o1 < 0 || o2 < 0 || o1 > 64 || o2 > 64 {
			return
		}
		checkPair(t, b, i, &Pair{O1: o1, O2: o2, C1: [2]byte{a1, b1}, C2: [2]byte{a2, b2}})
	})
}

// checkEither holds PairEither to refPair on both pairs.
func checkEither(t *testing.T, b []byte, i int, pr, qr *Pair) {
	t.Helper()
	p, found := PairEither(b, i, pr, qr)
	q := *qr
	q.C1[1], q.C2[1] = q.C1[0], q.C2[0]
	want := refPair(b, i, pr)
	if w := refPair(b, i, &q); w >= 0 && (want < 0 || w < want) {
		want = w
	}
	switch {
	case found && p != want:
		t.Fatalf("PairEither(len %d, from %d, %+v, %+v) = %d, want %d", len(b), i, *pr, q, p, want)
	case !found && (p < i || p > len(b) || (want >= 0 && want < p)):
		t.Fatalf("PairEither(len %d, from %d, %+v, %+v) stopped at %d, first pair at %d", len(b), i, *pr, q, p, want)
	}
}

func TestPairEither(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, kernels := range []bool{true, false} {
		was := UseKernels(kernels)
		for n := 0; n < 3000; n++ {
			b := make([]byte, r.IntN(400))
			for k := range b {
				b[k] = `abcdeABCDE xy\u`[r.IntN(15)]
			}
			pr := &Pair{O1: r.IntN(20), O2: r.IntN(20), C1: [2]byte{'a', 'A'}, C2: [2]byte{'x', 'x'}}
			qr := &Pair{O1: r.IntN(3), O2: r.IntN(3) + 1, C1: [2]byte{'\\'}, C2: [2]byte{'u'}}
			for i := 0; i <= len(b); i += 1 + r.IntN(7) {
				checkEither(t, b, i, pr, qr)
			}
		}
		UseKernels(was)
	}
}

func FuzzPairEither(f *testing.F) {
	f.Add([]byte(strings.Repeat(`transcript \u0073ession `, 20)), 0, 3, 9, byte('n'), byte('N'), byte('p'), byte('p'), 0, 1, byte('\\'), byte('u'))
	f.Fuzz(func(t *testing.T, b []byte, i, o1, o2 int, a1, b1, a2, b2 byte, q1, q2 int, c1, c2 byte) {
		if i < 0 || i > len(b) || o1 < 0 || o2 < 0 || o1 > 64 || o2 > 64 || q1 < 0 || q2 < 0 || q1 > 64 || q2 > 64 {
			return
		}
		checkEither(t, b, i, &Pair{O1: o1, O2: o2, C1: [2]byte{a1, b1}, C2: [2]byte{a2, b2}}, &Pair{O1: q1, O2: q2, C1: [2]byte{c1}, C2: [2]byte{c2}})
	})
}

// TestBackslash: Backslash is strings.IndexByte(s, '\\') at every length and position.
func TestBackslash(t *testing.T) {
	for n := 0; n < 150; n++ {
		for at := -1; at < n; at++ {
			b := []byte(strings.Repeat("a\xffé", n)[:n])
			if at >= 0 {
				b[at] = '\\'
				if at+1 < n {
					b[at+1] = '\\' // a second one after it changes nothing
				}
			}
			if got, want := Backslash(string(b)), strings.IndexByte(string(b), '\\'); got != want {
				t.Fatalf("%q: %d, want %d", b, got, want)
			}
		}
	}
}
