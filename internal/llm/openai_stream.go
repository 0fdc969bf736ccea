package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
)

// A streamed chat completion (stream:true) is a series of server-sent events, each a line
// "data: {chunk}" (a chat.completion.chunk: choices[0].delta.content, a finish_reason in one of
// the last, usage in the last with stream_options.include_usage), ended by "data: [DONE]".
// ctxc streams only to show the tokens received while it waits (Options.Received); the reply it
// builds is the one a whole response would give, judged by the same rules (decodeOpenAI).

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// isEventStream reports whether a Content-Type is text/event-stream: a server that does not
// stream answers application/json, read as usual.
func isEventStream(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/event-stream"
}

// streamed is a reply being assembled from its chunks.
type streamed struct {
	text    strings.Builder
	reply   Reply
	refusal string
	pieces  int
}

// acceptStream reads a 2xx streamed reply to its end, telling received of each piece.
func (o *OpenAI) acceptStream(ctx context.Context, resp *http.Response, received func(int)) (Reply, attemptOutcome) {
	var st streamed
	err := readEvents(resp.Body, func(data []byte) error { return st.add(data, received) })
	if err == errStreamDone {
		err = nil
	}
	if ctx.Err() != nil {
		return Reply{}, attemptOutcome{err: ctx.Err()}
	}
	var de *decodeError
	switch {
	case errors.As(err, &de):
		return Reply{}, attemptOutcome{err: o.fail(de.kind, resp.StatusCode, de.msg, nil)}
	case err != nil:
		kind, msg, _ := transportKind(err)
		if kind == 0 {
			kind, msg = Unavailable, "reading the response failed"
		}
		return Reply{}, attemptOutcome{err: o.fail(kind, resp.StatusCode, msg, err)}
	}
	r, ferr := st.finish()
	if ferr != nil {
		return Reply{}, attemptOutcome{err: o.fail(ferr.kind, resp.StatusCode, ferr.msg, nil)}
	}
	return r, attemptOutcome{}
}

// readEvents calls fn with the data of each event of body, until [DONE] or its end. Lines
// other than data (comments, event names, ids) are skipped; an event's data lines are joined
// by newlines, as the format says.
func readEvents(body io.Reader, fn func(data []byte) error) error {
	br := bufio.NewReaderSize(body, 64<<10)
	var data []byte
	dispatch := func() error {
		if len(data) == 0 {
			return nil
		}
		d := data
		data = data[:0]
		return fn(d)
	}
	for {
		line, err := br.ReadBytes('\n')
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0 && err == nil:
			if derr := dispatch(); derr != nil {
				return derr
			}
		case bytes.HasPrefix(line, []byte("data:")):
			v := bytes.TrimPrefix(line[len("data:"):], []byte(" "))
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, v...)
		}
		if err == io.EOF {
			return dispatch()
		}
		if err != nil {
			return err
		}
	}
}

// errStreamDone ends the reading at [DONE].
var errStreamDone = errors.New("[DONE]")

// add takes one event's data: a chunk, an in-band error, or [DONE].
func (st *streamed) add(data []byte, received func(int)) error {
	if string(data) == "[DONE]" {
		return errStreamDone // (what may follow is not read)
	}
	var c openaiBody
	if err := json.Unmarshal(data, &c); err != nil {
		return &decodeError{BadResponse, "streamed response is not a chat completion chunk: " + snippet(err.Error(), 120)}
	}
	if de := inBandError(c.Error); de != nil {
		return de
	}
	if c.Usage != nil {
		st.reply.Usage = c.Usage.usage()
	}
	if len(c.Choices) == 0 {
		return nil // (the usage chunk has none)
	}
	ch := c.Choices[0]
	if ch.FinishReason != nil && *ch.FinishReason != "" {
		st.reply.DoneReason = *ch.FinishReason
	}
	if ch.Delta == nil {
		return nil
	}
	if ch.Delta.Refusal != nil {
		st.refusal += *ch.Delta.Refusal
	}
	text, ok := contentText(ch.Delta.Content)
	if !ok || text == "" {
		return nil
	}
	if st.text.Len()+len(text) > maxResponseBytes {
		return errBodyTooLarge
	}
	st.text.WriteString(text)
	st.pieces++
	received(st.pieces)
	return nil
}

// finish judges the assembled reply as decodeOpenAI judges a whole one.
func (st *streamed) finish() (Reply, *decodeError) {
	if st.text.Len() == 0 && st.refusal != "" {
		return Reply{}, &decodeError{BadResponse, "model refused: " + snippet(st.refusal, 200)}
	}
	if st.reply.DoneReason == "" {
		return Reply{}, &decodeError{BadResponse, "response has no finish_reason: the generation did not complete"}
	}
	st.reply.Text = st.text.String()
	return st.reply, nil
}
