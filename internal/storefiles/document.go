package storefiles

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/tidwall/gjson"
)

// The agents that keep a session as one JSON document (Nanocoder's session, SWE-agent's and
// mini-swe-agent's trajectories) are told by how their documents start, and exported as a
// header line followed by one line for each item of a list the document holds.

// SniffFile reports whether path is a regular file whose first n bytes pass sniff.
func SniffFile(path string, n int, sniff func(head []byte) bool) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	head := make([]byte, n)
	k, _ := f.ReadAt(head, 0)
	return sniff(head[:k])
}

// StartsObject reports whether a document starts as an object whose first member is one of
// members (each given quoted, `"id"`), after a byte order mark and white space.
func StartsObject(head []byte, members ...string) bool {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	if len(head) == 0 || head[0] != '{' {
		return false
	}
	rest := bytes.TrimLeft(head[1:], " \t\r\n")
	for _, m := range members {
		if bytes.HasPrefix(rest, []byte(m)) {
			return true
		}
	}
	return false
}

// ReadObject reads a file that holds one JSON object, whole.
func ReadObject(path string) (gjson.Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return gjson.Result{}, err
	}
	if !gjson.ValidBytes(data) {
		return gjson.Result{}, fmt.Errorf("not a JSON document")
	}
	doc := gjson.ParseBytes(data)
	if !doc.IsObject() {
		return gjson.Result{}, fmt.Errorf("not a JSON object")
	}
	return doc, nil
}

// ArrayOf is the list a document's member holds (none when the member is absent); an error
// when it holds something else.
func ArrayOf(v gjson.Result, key string) ([]gjson.Result, error) {
	if v.Exists() && !v.IsArray() {
		return nil, fmt.Errorf("%q is not an array", key)
	}
	return v.Array(), nil
}

// WriteLines writes an export: header as one JSON line, then each item as compact JSON on a
// line of its own (an item that cannot be compacted is an error naming it: what and its number).
func WriteLines(w io.Writer, header any, items []gjson.Result, what string) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw) // (one line, its newline included)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(header); err != nil {
		return err
	}
	var buf bytes.Buffer
	for i, m := range items {
		buf.Reset()
		if err := json.Compact(&buf, []byte(m.Raw)); err != nil {
			return fmt.Errorf("%s %d: %w", what, i+1, err)
		}
		buf.WriteByte('\n')
		if _, err := bw.Write(buf.Bytes()); err != nil {
			return err
		}
	}
	return bw.Flush()
}
