package conv

import (
	"hash/fnv"
	"unicode/utf8"

	"github.com/ctxc/ctxc/internal/estimate"
	"github.com/ctxc/ctxc/internal/jsonl"
)

func TextBlockV(kind BlockKind, v jsonl.Value, text TextMode) Block {
	b := Block{Kind: kind, Chars: text.Count(v)}
	if text.On() {
		b.Text = v.Text()
	}
	return b
}

func ToolCallBlockV(id, name string, args jsonl.Value, text TextMode) Block {
	b := Block{Kind: BlockToolCall, ID: id, Name: name, Chars: utf8.RuneCountInString(name) + text.Count(args)}
	if text.On() {
		b.Args = args.Text()
		if b.Args == "" {
			b.Args = "{}"
		}
	}
	return b
}

// TextMode says how much text a parse decodes.
type TextMode uint8

const (
	// NoText: counts only (stats).
	NoText TextMode = iota
	// WithText: every text whole.
	WithText
	// WindowedText: like withText, except that a large tool result keeps only its first and
	// last ToolTextWindow bytes decoded (Block.Cut); Materialize reads the rest back.
	WindowedText
	// SearchText: like withText, without counting characters (Block.Chars stays 0): a search
	// of the whole history (DecodeRecord) needs the text, not the estimate.
	SearchText
)

func (t TextMode) On() bool { return t != NoText }

// count is v.Chars(), or 0 when the mode does not count.
func (t TextMode) Count(v jsonl.Value) int {
	if t == SearchText {
		return 0
	}
	return v.Chars()
}

// TextBuilder builds a text block from literals and JSON values, counting code points without
// copying when only statistics are wanted.
type TextBuilder struct {
	Text    bool
	NoCount bool // searchText: no character counts
	chars   int
	buf     []byte
}

func (t *TextBuilder) Lit(s string) {
	t.chars += estimate.Chars(s)
	if t.Text {
		t.buf = append(t.buf, s...)
	}
}

func (t *TextBuilder) Val(v jsonl.Value) {
	if !t.NoCount {
		t.chars += v.Chars()
	}
	if t.Text {
		t.buf = append(t.buf, v.Text()...)
	}
}

func (t *TextBuilder) Block() Block {
	b := Block{Kind: BlockText, Chars: t.chars}
	if t.Text {
		b.Text = string(t.buf)
	}
	return b
}

// IDKey is an id's 64-bit FNV-1a hash.
func IDKey(id string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(id); i++ {
		h ^= uint64(id[i])
		h *= 1099511628211
	}
	return h
}

// LiteralBlock is a text block of a fixed text.
func LiteralBlock(s string, text TextMode) Block {
	b := Block{Kind: BlockText}
	if text != SearchText {
		b.Chars = len([]rune(s))
	}
	if text.On() {
		b.Text = s
	}
	return b
}

// EntryKey maps an entry id to a map key (pi's, Qwen Code's): an 8-hex id exactly, anything else by FNV-1a (top bit set
// so the two never meet).
func EntryKey(id string) uint64 {
	if len(id) == 8 {
		var v uint64
		ok := true
		for i := 0; i < 8 && ok; i++ {
			c := id[i]
			switch {
			case c >= '0' && c <= '9':
				v = v<<4 | uint64(c-'0')
			case c >= 'a' && c <= 'f':
				v = v<<4 | uint64(c-'a'+10)
			default:
				ok = false
			}
		}
		if ok {
			return v
		}
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64() | 1<<63
}
