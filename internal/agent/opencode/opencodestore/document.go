package opencodestore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/storefiles"
)

// A session document is what `opencode export ID` prints and `opencode import FILE` takes in:
// one JSON object, {"info": <session>, "messages": [{"info": <message>, "parts": [...]}]}, the
// file ctxc compact -o OUT.json writes of an opencode session. ctxc reads such a file (named
// *.json, its first member "info" whose "id" is a session's, ses_...) as its export, as a session
// of the store would be once imported: one message a line, by time created then id, each
// message's parts by id. ctxc never writes into it.
//
// A directory walk does not look for them (Found): it would open every *.json file below a
// folder (OpenHands keeps one an event) to read its first bytes; a document is read when named.
var Documents = &storefiles.Converted{Name: "opencode-document", Is: IsDocument, Export: ExportDocument,
	Found: func(string, string) bool { return false },
	Refuse: func(p string) error {
		return &safewrite.ReadOnlyError{Path: p, Reason: "is an opencode session document (opencode import takes it in), which ctxc only reads",
			Hint: "give -o OUT.json to write the result as a new one"}
	}}

// documentHead is how much of a file IsDocument reads.
const documentHead = 512

// IsDocument reports whether path is a session document: a regular file named *.json that
// starts {"info":{"id":"ses_ (white space allowed between the tokens).
func IsDocument(path string) bool {
	if !strings.EqualFold(filepath.Ext(path), ".json") {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return false
	}
	var head [documentHead]byte
	n, _ := io.ReadFull(f, head[:])
	return documentSniff(head[:n])
}

// documentSniff: the text starts {"info":{"id":"ses_.
func documentSniff(b []byte) bool {
	for _, tok := range []string{"{", `"info"`, ":", "{", `"id"`, ":", `"ses_`} {
		b = bytes.TrimLeft(b, " \t\r\n")
		if !bytes.HasPrefix(b, []byte(tok)) {
			return false
		}
		b = b[len(tok):]
	}
	return true
}

// document is a session document's messages, kept as written.
type document struct {
	Info     json.RawMessage `json:"info"`
	Messages []struct {
		Info  json.RawMessage   `json:"info"`
		Parts []json.RawMessage `json:"parts"`
	} `json:"messages"`
}

// docMessage is one message of a document, with what orders it.
type docMessage struct {
	id      string
	created float64
	data    string
	parts   []part
}

// ExportDocument writes a session document's messages as a store's export does: one message a
// line ({"info":{...},"parts":[...]}), by time created then id, parts by id.
func ExportDocument(path string, w io.Writer) error {
	text, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc document
	if !json.Valid(text) {
		return fmt.Errorf("%s: not a JSON document", path)
	}
	if err := json.Unmarshal(text, &doc); err != nil {
		return fmt.Errorf("%s: not an opencode session document: %v", path, err)
	}
	msgs := make([]docMessage, 0, len(doc.Messages))
	for i, m := range doc.Messages {
		if !jsonl.Value(bytes.TrimSpace(m.Info)).IsObject() {
			return fmt.Errorf("%s: message %d: its info is not a JSON object", path, i+1)
		}
		dm := docMessage{id: gjsonStr(m.Info, "id"), created: gjsonNum(m.Info, "time", "created"), data: string(m.Info)}
		for _, p := range m.Parts {
			dm.parts = append(dm.parts, part{id: gjsonStr(p, "id"), data: string(p)})
		}
		sort.SliceStable(dm.parts, func(a, b int) bool { return dm.parts[a].id < dm.parts[b].id })
		msgs = append(msgs, dm)
	}
	sort.SliceStable(msgs, func(a, b int) bool {
		if msgs[a].created != msgs[b].created {
			return msgs[a].created < msgs[b].created
		}
		return msgs[a].id < msgs[b].id
	})
	var line bytes.Buffer
	for i := range msgs {
		line.Reset()
		if err := documentLine(&line, &msgs[i]); err != nil {
			return fmt.Errorf("%s: message %s: %v", path, msgs[i].id, err)
		}
		if _, err := w.Write(line.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// documentLine is one message's line: its info and parts as written, each on one line (they
// hold their ids, as the document does).
func documentLine(b *bytes.Buffer, m *docMessage) error {
	b.WriteString(Opencode.line)
	if err := compactObject(b, m.data); err != nil {
		return err
	}
	b.WriteString(`,"parts":[`)
	for i, p := range m.parts {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := compactObject(b, p.data); err != nil {
			return fmt.Errorf("part %d: %w", i+1, err)
		}
	}
	b.WriteString("]}\n")
	return nil
}

// compactObject writes a JSON object on one line.
func compactObject(b *bytes.Buffer, data string) error {
	d := bytes.TrimSpace([]byte(data))
	if !jsonl.Value(d).IsObject() {
		return fmt.Errorf("not a JSON object")
	}
	return json.Compact(b, d)
}

// gjsonStr is the string at keys in a JSON object ("" when it is not one).
func gjsonStr(obj json.RawMessage, keys ...string) string {
	v := jsonl.Value(bytes.TrimSpace(obj))
	for _, k := range keys {
		v = v.Get(k)
	}
	if !v.IsString() {
		return ""
	}
	return v.Str()
}

// gjsonNum is the number at keys in a JSON object (0 when it is not one).
func gjsonNum(obj json.RawMessage, keys ...string) float64 {
	v := jsonl.Value(bytes.TrimSpace(obj))
	for _, k := range keys {
		v = v.Get(k)
	}
	var f float64
	if json.Unmarshal([]byte(v), &f) != nil {
		return 0
	}
	return f
}
