package memory

import (
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/ctxc/ctxc/internal/ledger"
)

// Options of a memory run.
type Options struct {
	Read     ReadOptions
	Jobs     int // files read at once (0: one per core)
	MinCount int // entries seen fewer times are left out (0: all)
	// Max bounds the entries of each section (0: DefaultMax); Files and Commands have their own.
	Max int
	// Base, when set, is the folder that paths of changed files are written relative to (the
	// memory file's folder): the same file then has the same entry from every session.
	Base string
	// Refine, when set, is applied to the entries of an update after the merge (a model's pass,
	// Phrase).
	Refine func([]Entry) []Entry
	// Warn is called for a file that cannot be read; the run goes on with the others. Nil: the
	// first such file fails the run.
	Warn func(path string, err error)
}

// Section sizes.
const (
	DefaultMax  = 30 // rules, constraints, decisions
	maxCommands = 10
	maxFiles    = 10
)

// FileError is a session file that could not be read.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// Read builds the memory of session files, in the order given (the result does not depend on
// the order the files are read in).
func Read(ctx context.Context, paths []string, o Options) (*Memory, error) {
	c := newCollector(o.Base)
	results := make([]fileResult, len(paths))
	jobs := o.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(jobs, max(len(paths), 1)) {
		wg.Go(func() {
			for i := range next {
				if ctx.Err() != nil {
					results[i].err = ctx.Err()
					continue
				}
				obs, n, err := fileObservations(paths[i], o.Read)
				results[i] = fileResult{obs: obs, size: n, err: err}
			}
		})
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	m := &Memory{}
	for i, r := range results {
		if r.err != nil {
			if o.Warn == nil || ctx.Err() != nil {
				return nil, &FileError{Path: paths[i], Err: r.err}
			}
			o.Warn(paths[i], r.err)
			continue
		}
		c.add(paths[i], r.obs)
		m.Files++
		m.Bytes += r.size
	}
	m.Entries = finish(c.entries(), o)
	return m, nil
}

type fileResult struct {
	obs  []observation
	size int64
	err  error
}

// collector merges observations into entries by kind and key.
type collector struct {
	base    string
	at      map[string]int
	es      []Entry
	session []map[string]bool // per entry: the files it was seen in
}

func newCollector(base string) *collector { return &collector{base: base, at: map[string]int{}} }

// relative writes a changed file's path relative to the base folder when it is inside it.
func (c *collector) relative(p string) string {
	if c.base == "" || !filepath.IsAbs(p) {
		return p
	}
	if r, err := filepath.Rel(c.base, p); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
		return r
	}
	return p
}

func entryKey(k Kind, text string) string {
	return k.String() + "\x00" + strings.TrimRight(ledger.Key(text), ".!;, ")
}

func (c *collector) add(path string, obs []observation) {
	for _, ob := range obs {
		if ob.kind == File {
			ob.text = c.relative(ob.text)
		}
		key := entryKey(ob.kind, ob.text)
		i, ok := c.at[key]
		if !ok {
			i = len(c.es)
			c.at[key] = i
			c.es = append(c.es, Entry{Kind: ob.kind, key: key})
			c.session = append(c.session, map[string]bool{})
		}
		e := &c.es[i]
		e.Count++
		src := Source{Path: path, Line: ob.line, Time: ob.time}
		if !ob.time.Before(e.Last) {
			e.Last, e.Text = ob.time, ob.text // the newest wording
		}
		e.Sources = addSources(e.Sources, src)
		if !c.session[i][path] {
			c.session[i][path] = true
			e.Sessions++
		}
	}
}

func (c *collector) entries() []Entry { return c.es }

// finish marks superseded statements, ranks every section and keeps the top of each.
func finish(es []Entry, o Options) []Entry {
	markSuperseded(es) // before the count filter: a reversal said once still reverses
	if o.MinCount > 1 {
		es = slices.DeleteFunc(es, func(e Entry) bool { return e.Count < o.MinCount })
	}
	slices.SortFunc(es, rank)
	limit := o.Max
	if limit <= 0 {
		limit = DefaultMax
	}
	var out []Entry
	var n [numKinds]int
	for _, e := range es {
		capOf := limit
		switch e.Kind {
		case Command:
			capOf = min(limit, maxCommands)
		case File:
			capOf = min(limit, maxFiles)
		}
		if n[e.Kind] >= capOf {
			continue
		}
		n[e.Kind]++
		out = append(out, e)
	}
	return out
}
