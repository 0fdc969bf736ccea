package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/ctxc/ctxc/internal/grep"
	"github.com/ctxc/ctxc/internal/index"
)

// SearchIn are the arguments of the search tool.
type SearchIn struct {
	Query   string   `json:"query" jsonschema:"words to find (ranked with BM25: rare words weigh more)"`
	Paths   []string `json:"paths" jsonschema:"session files or directories: the index is brought up to date with them first, and only they are searched"`
	Agent   string   `json:"agent,omitempty" jsonschema:"only sessions of this format: {{agents}}"`
	Project string   `json:"project,omitempty" jsonschema:"only sessions whose project folder contains this"`
	Roles   []string `json:"roles,omitempty" jsonschema:"only these roles: user, assistant, tool, system, summary"`
	Since   string   `json:"since,omitempty" jsonschema:"only messages at or after this RFC 3339 time"`
	Until   string   `json:"until,omitempty" jsonschema:"only messages before this RFC 3339 time"`
	Limit   int      `json:"limit,omitempty" jsonschema:"at most this many results (default 10, at most 100)"`
}

// SearchOut is the search tool's result.
type SearchOut struct {
	Results   []index.Result `json:"results"`
	Truncated bool           `json:"truncated"`
	Note      string         `json:"note,omitempty"`
	Errors    []string       `json:"errors,omitempty"`
}

// search updates the index with the paths and ranks their messages.
func (o Options) search(in SearchIn) (SearchOut, error) {
	out := SearchOut{Results: []index.Result{}}
	q, err := in.query()
	if err != nil {
		return out, err
	}
	files, cut, problems, err := o.files(in.Paths)
	if err != nil {
		return out, err
	}
	out.Errors = append(out.Errors, problems...)
	dir := o.IndexDir
	if dir == "" {
		if dir, err = index.DefaultDir(); err != nil {
			return out, err
		}
	}
	_, err = index.Update(dir, files, nil, index.UpdateOptions{Warn: func(err error) { out.Errors = append(out.Errors, err.Error()) }})
	if err != nil {
		return out, err
	}
	r, err := index.Open(dir)
	if err != nil {
		return out, err
	}
	defer r.Close()
	q.Paths = map[string]bool{}
	for _, f := range files {
		q.Paths[absPath(f)] = true
	}
	res := r.Search(q)
	r.Complete(res, q.Text)
	out.fill(res, o.maxBytes())
	if cut {
		out.Truncated = true
		out.Note = fmt.Sprintf("only the first %d files were searched: give narrower paths", o.maxFiles())
	}
	return out, nil
}

// query checks the arguments and turns them into an index query.
func (in SearchIn) query() (index.Query, error) {
	q := index.Query{Text: in.Query, Agent: in.Agent, Project: in.Project, Limit: in.Limit}
	if in.Query == "" {
		return q, errors.New("query: empty")
	}
	if q.Limit <= 0 {
		q.Limit = 10
	}
	if q.Limit > 100 {
		return q, errors.New("limit: at most 100")
	}
	for name, s := range map[string]string{"since": in.Since, "until": in.Until} {
		if s == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return q, fmt.Errorf("%s: %q is not an RFC 3339 time", name, s)
		}
		if name == "since" {
			q.Since = t
		} else {
			q.Until = t
		}
	}
	var err error
	if q.Roles, err = grep.ParseRoles(in.Roles); err != nil {
		return q, fmt.Errorf("roles: %w", err)
	}
	return q, nil
}

// fill keeps the results that fit in maxBytes of JSON.
func (out *SearchOut) fill(res []index.Result, maxBytes int) {
	size := 400
	for _, r := range res {
		b, _ := json.Marshal(r)
		if size+len(b)+1 > maxBytes {
			out.Truncated = true
			out.Note = fmt.Sprintf("cut after %d results (result limit %d bytes)", len(out.Results), maxBytes)
			return
		}
		size += len(b) + 1
		out.Results = append(out.Results, r)
	}
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
