package compact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/ledger"
	"github.com/ctxc/ctxc/internal/summarize"
	"github.com/ctxc/ctxc/internal/transcript"
)

// DefaultRequestTarget is the summary size of ctxc summarize when none is set, in tokens: an
// agent's own summaries are larger than a ctxc marker's (pi keeps 16,384 tokens for its summary
// by default), and a long session's ledger alone can need several thousand.
const DefaultRequestTarget = 8000

// SummaryRequest is the summarization step of an agent's own compaction, asked of ctxc by the
// agent's plugin (ctxc summarize): the messages the agent is about to replace, in the agent's
// own shape, and what it carries forward.
type SummaryRequest struct {
	Agent string `json:"agent"` // the shape of the messages: "pi" (pi's AgentMessage objects)
	// Messages are the messages to summarize, oldest first; TurnPrefix, the start of a turn
	// split by the compaction (pi's turnPrefixMessages), summarized after them.
	Messages   []json.RawMessage `json:"messages"`
	TurnPrefix []json.RawMessage `json:"turn_prefix_messages,omitempty"`
	// PreviousSummary is the summary of the compaction before, read as the first input (its
	// facts are carried again).
	PreviousSummary    string `json:"previous_summary,omitempty"`
	FirstKeptEntryID   string `json:"first_kept_entry_id,omitempty"`
	TokensBefore       int    `json:"tokens_before,omitempty"`
	CustomInstructions string `json:"custom_instructions,omitempty"`
}

// SummaryResponse is ctxc's answer, in the shape of pi's compaction result.
type SummaryResponse struct {
	Summary          string         `json:"summary"`
	FirstKeptEntryID string         `json:"firstKeptEntryId,omitempty"`
	TokensBefore     int            `json:"tokensBefore"`
	Details          map[string]any `json:"details"`
}

// Provenance is what ctxc records of a summary it wrote for an agent (the details' "ctxc").
type Provenance struct {
	Provider string                   `json:"provider"`
	Model    string                   `json:"model,omitempty"`
	Fallback string                   `json:"fallback,omitempty"`
	Target   int                      `json:"target"`
	Messages int                      `json:"messages"`
	Ledger   *transcript.LedgerCounts `json:"ledger,omitempty"`
}

// Summarize writes the summary of an agent's compaction: the messages are read as the agent's
// reader reads them, summarized by o's summarizer (the extractive one when o.Client is nil)
// within o's target, and audited against the fact ledger, so that the facts the summarizer
// left out are carried verbatim.
func Summarize(ctx context.Context, r SummaryRequest, o Options) (*SummaryResponse, error) {
	msgs, err := requestMessages(r)
	if err != nil {
		return nil, err
	}
	items := transcript.Flatten(msgs)
	for i := range items {
		items[i].Line = 0 // the lines of a request are not lines of the agent's file
	}
	if r.PreviousSummary != "" {
		items = append([]transcript.Item{{Role: "user", Kind: "summary", Text: r.PreviousSummary}}, items...)
	}
	if len(items) == 0 {
		return nil, errors.New("nothing to summarize: no message and no previous summary")
	}
	instructions := joinInstructions(o.Instructions, r.CustomInstructions)
	req := summarize.Request{Items: items, TargetTokens: o.target(), Instructions: instructions}
	if o.Redact {
		RedactItems(req.Items)
	}
	led := ledger.Build(items, ledger.Options{Instructions: instructions})
	var sum summarize.Result
	if o.Client == nil {
		sum = summarize.Extractive(req)
	} else if sum, err = summarize.Summarize(ctx, o.Client, req, o.SummarizeOpts); err != nil {
		return nil, err
	}
	_, rep := auditSummary(&sum, led, o.target())
	p := Provenance{Provider: sum.Provider, Model: sum.Model, Fallback: sum.Fallback, Target: o.target(),
		Messages: len(msgs), Ledger: markerLedger(rep)}
	return &SummaryResponse{Summary: sum.Text, FirstKeptEntryID: r.FirstKeptEntryID, TokensBefore: r.TokensBefore,
		Details: map[string]any{"ctxc": p}}, nil
}

// joinInstructions is the instructions of a compaction: ctxc's own (--instructions, the
// project's section) and the agent's request's (the text a user typed after /compact).
func joinInstructions(own, request string) string {
	own, request = strings.TrimSpace(own), strings.TrimSpace(request)
	if own == "" || request == "" {
		return own + request
	}
	return own + "\n\n" + request
}

// requestMessages reads the request's messages with the reader of their agent's format: they
// are written as the entries of a session file of that format, which is then loaded.
func requestMessages(r SummaryRequest) ([]transcript.Message, error) {
	if r.Agent != agent.Pi {
		return nil, fmt.Errorf("ctxc summarize reads pi's messages (agent %q)", r.Agent)
	}
	var b bytes.Buffer
	b.WriteString(`{"type":"session","id":"ctxc-summarize","timestamp":"1970-01-01T00:00:00.000Z","cwd":"/"}` + "\n")
	for _, m := range append(r.Messages, r.TurnPrefix...) {
		var c bytes.Buffer
		if err := json.Compact(&c, m); err != nil {
			return nil, fmt.Errorf("a message of the request is not JSON: %w", err)
		}
		b.WriteString(`{"type":"message","message":`)
		b.Write(c.Bytes())
		b.WriteString("}\n")
	}
	dir, err := os.MkdirTemp("", "ctxc-summarize-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "request.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		return nil, err
	}
	// Large tool results are decoded at their ends, which is what the summarizers read (Items
	// carries both ends).
	_, msgs, err := transcript.LoadFile(path, transcript.Options{Format: transcript.FormatPi, Windowed: true})
	return msgs, err
}
