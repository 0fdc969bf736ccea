package recall

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/ctxc/ctxc/transcript"
	"github.com/tidwall/gjson"
	_ "modernc.org/sqlite" // pure-Go SQLite with FTS5
)

// indexSchema is the version of the index's tables; another version is rebuilt.
const indexSchema = "1"

// DefaultIndexPath is $XDG_CACHE_HOME/ctxc/index.db (~/.cache/ctxc/index.db).
func DefaultIndexPath() (string, error) {
	dir := os.Getenv("XDG_CACHE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".cache")
	}
	return filepath.Join(dir, "ctxc", "index.db"), nil
}

// Index is an SQLite FTS5 index of the messages of sessions: one row per searchable text of a
// message (as grep decodes it), with the file, line, role, time, message index and covering
// compaction. Rows of file number k have rowids k<<32 + n, so a file's rows are replaced by a
// range delete; a file's rows and its (size, mtime) are written in one transaction, so an
// update killed at any moment leaves each file either as it was or fully updated.
type Index struct {
	db   *sql.DB
	path string
}

// IndexError says the index cannot be used (missing, corrupt, another schema): searches fall
// back to reading the files.
type IndexError struct {
	Path string
	Err  error
}

func (e *IndexError) Error() string { return fmt.Sprintf("index %s: %v", e.Path, e.Err) }
func (e *IndexError) Unwrap() error { return e.Err }

// OpenIndex opens (create: creates) the index at path.
func OpenIndex(path string, create bool) (*Index, error) {
	if !create {
		if _, err := os.Stat(path); err != nil {
			return nil, &IndexError{path, fmt.Errorf("missing (build it with ctxc index DIR)")}
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
	if err != nil {
		return nil, &IndexError{path, err}
	}
	db.SetMaxOpenConns(1)
	ix := &Index{db: db, path: path}
	if err := ix.init(create); err != nil {
		db.Close()
		return nil, &IndexError{path, err}
	}
	return ix, nil
}

func (ix *Index) init(create bool) error {
	var v string
	err := ix.db.QueryRow(`SELECT v FROM meta WHERE k = 'schema'`).Scan(&v)
	switch {
	case err == nil && v == indexSchema:
		return nil
	case err == nil && !create:
		return fmt.Errorf("schema %s, this ctxc reads %s (rebuild it with ctxc index)", v, indexSchema)
	case err != nil && !create:
		return fmt.Errorf("unreadable (corrupt?): %v", err)
	}
	stmts := []string{
		`DROP TABLE IF EXISTS msgs`, `DROP TABLE IF EXISTS files`, `DROP TABLE IF EXISTS meta`,
		`CREATE TABLE meta(k TEXT PRIMARY KEY, v TEXT)`,
		`CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, size INTEGER NOT NULL, mtime INTEGER NOT NULL, format TEXT, messages INTEGER)`,
		`CREATE VIRTUAL TABLE msgs USING fts5(text, line UNINDEXED, role UNINDEXED, time UNINDEXED, idx UNINDEXED, covered UNINDEXED, cfrom UNINDEXED, cto UNINDEXED, tokenize='trigram')`,
		`INSERT INTO meta VALUES ('schema', '` + indexSchema + `')`,
	}
	tx, err := ix.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, s := range stmts {
		if _, err := tx.Exec(s); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Close closes the index.
func (ix *Index) Close() error { return ix.db.Close() }

// UpdateStats says what Update did.
type UpdateStats struct {
	Files, Indexed, Unchanged, Removed, Failed, Messages int
}

// Update indexes the files whose size or modification time changed since they were indexed,
// and forgets indexed files under roots that are gone. warn is told about files that fail.
func (ix *Index) Update(files, roots []string, format transcript.Format, warn func(error)) (UpdateStats, error) {
	var st UpdateStats
	known := map[string]bool{}
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return st, err
		}
		known[abs] = true
		st.Files++
		info, err := os.Stat(abs)
		if err != nil {
			st.Failed++
			warn(err)
			continue
		}
		var size, mtime int64
		err = ix.db.QueryRow(`SELECT size, mtime FROM files WHERE path = ?`, abs).Scan(&size, &mtime)
		if err == nil && size == info.Size() && mtime == info.ModTime().UnixNano() {
			st.Unchanged++
			continue
		}
		n, err := ix.indexFile(abs, info, format)
		if err != nil {
			st.Failed++
			warn(err)
			continue
		}
		st.Indexed++
		st.Messages += n
	}
	// Indexed files under the roots that are no longer there.
	rows, err := ix.db.Query(`SELECT id, path FROM files`)
	if err != nil {
		return st, err
	}
	var gone []int64
	for rows.Next() {
		var id int64
		var p string
		if err := rows.Scan(&id, &p); err != nil {
			rows.Close()
			return st, err
		}
		if known[p] {
			continue
		}
		for _, r := range roots {
			ar, _ := filepath.Abs(r)
			if p == ar || strings.HasPrefix(p, ar+string(filepath.Separator)) {
				if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
					gone = append(gone, id)
				}
				break
			}
		}
	}
	rows.Close()
	for _, id := range gone {
		tx, err := ix.db.Begin()
		if err != nil {
			return st, err
		}
		tx.Exec(`DELETE FROM msgs WHERE rowid BETWEEN ? AND ?`, id<<32, id<<32|0xffffffff)
		tx.Exec(`DELETE FROM files WHERE id = ?`, id)
		if err := tx.Commit(); err != nil {
			return st, err
		}
		st.Removed++
	}
	return st, nil
}

type indexRow struct {
	text, role, time  string
	line, idx         int
	covered, cfrom, t int
}

// indexFile reads a file (up to the size it had when stat'ed) and replaces its rows.
func (ix *Index) indexFile(path string, info os.FileInfo, format transcript.Format) (int, error) {
	var rows []indexRow
	msgs := 0
	err := eachMessage(path, format, info.Size(), func(m *transcript.Message, idx int, h *Hit, line []byte) error {
		msgs++
		when := gjson.GetBytes(line, "timestamp").String()
		for _, t := range texts(m, nil) {
			r := indexRow{text: t, role: roleOf(m), time: when, line: m.Line, idx: idx, covered: h.CoveredBy}
			if h.Span != nil {
				r.cfrom, r.t = h.Span[0], h.Span[1]
			}
			rows = append(rows, r)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	tx, err := ix.db.Begin()
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var id int64
	if err := tx.QueryRow(`SELECT id FROM files WHERE path = ?`, path).Scan(&id); err == nil {
		if _, err := tx.Exec(`DELETE FROM msgs WHERE rowid BETWEEN ? AND ?`, id<<32, id<<32|0xffffffff); err != nil {
			return 0, err
		}
		if _, err := tx.Exec(`UPDATE files SET size = ?, mtime = ?, messages = ? WHERE id = ?`, info.Size(), info.ModTime().UnixNano(), msgs, id); err != nil {
			return 0, err
		}
	} else {
		res, err := tx.Exec(`INSERT INTO files(path, size, mtime, messages) VALUES (?, ?, ?, ?)`, path, info.Size(), info.ModTime().UnixNano(), msgs)
		if err != nil {
			return 0, err
		}
		if id, err = res.LastInsertId(); err != nil {
			return 0, err
		}
	}
	st, err := tx.Prepare(`INSERT INTO msgs(rowid, text, line, role, time, idx, covered, cfrom, cto) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	for n, r := range rows {
		if _, err := st.Exec(id<<32|int64(n), r.text, r.line, r.role, r.time, r.idx, r.covered, r.cfrom, r.t); err != nil {
			return 0, err
		}
	}
	return msgs, tx.Commit()
}

// eachMessage calls fn with each message of a file's history (as grep --json reads it: copies
// left out), its index, a Hit carrying its covering compaction, and its line's bytes.
func eachMessage(path string, format transcript.Format, size int64, fn func(m *transcript.Message, idx int, h *Hit, line []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	format, err = transcript.Detect(io.NewSectionReader(f, 0, size), path, transcript.Options{Format: format})
	if err != nil {
		return err
	}
	if format == transcript.FormatUnknown {
		format = transcript.FormatOpenAI
	}
	g := &grepper{path: path, format: format}
	if g.comps, err = findCompactions(path, f, size, format); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	lr := transcript.NewLineReader(io.NewSectionReader(f, 0, size))
	each := func(l transcript.Line) error {
		ms, _ := g.record(l.Bytes, l.Num)
		for i := range ms {
			h := Hit{}
			g.covered(ms[i].Line, &h)
			if err := fn(&ms[i], g.index, &h, l.Bytes); err != nil {
				return err
			}
			g.index++
		}
		return nil
	}
	for {
		l, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := each(l); err != nil {
			return err
		}
	}
	if p, ok := lr.Pending(); ok && format.Native() {
		return each(p)
	}
	return nil
}

// rarePart is the part of a literal to look up in the trigram index: a phrase of a long
// literal reads the lists of all its trigrams, common ones ("the", "req") included; eight
// characters around the rarest-looking ones (digits and punctuation before lower-case letters)
// find the same rows, and the regexp decides on each.
func rarePart(lit string) string {
	rs := []rune(lit)
	const n = 8
	if len(rs) <= n {
		return lit
	}
	score := func(r rune) int {
		if r < 128 {
			return byteRank(byte(r))
		}
		return 30
	}
	best, bestAt := -1, 0
	for i := 0; i+n <= len(rs); i++ {
		s := 0
		for _, r := range rs[i : i+n] {
			s += score(r)
		}
		if best < 0 || s < best {
			best, bestAt = s, i
		}
	}
	return string(rs[bestAt : bestAt+n])
}

// FileState of a file against the index.
const (
	StateFresh   = "fresh"
	StateStale   = "stale"
	StateMissing = "not indexed"
)

// Search answers a grep from the index for the files whose size and modification time are
// those indexed; the others are returned with their state, for the caller to scan (an index
// never gives the lines of a file that changed). Hits come per file in the order of files.
func (ix *Index) Search(files []string, p *Pattern, opts GrepOptions, emit func(Hit) error) (scan []string, states []string, err error) {
	type fileRef struct {
		path string
		pos  int
	}
	ids := map[int64]fileRef{}
	for i, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, nil, err
		}
		var id, size, mtime int64
		err = ix.db.QueryRow(`SELECT id, size, mtime FROM files WHERE path = ?`, abs).Scan(&id, &size, &mtime)
		state := StateFresh
		if err != nil {
			if !errors.Is(err, sql.ErrNoRows) {
				return nil, nil, &IndexError{ix.path, err}
			}
			state = StateMissing
		} else if info, serr := os.Stat(abs); serr != nil || info.Size() != size || info.ModTime().UnixNano() != mtime {
			state = StateStale
		}
		if state != StateFresh {
			scan = append(scan, f)
			states = append(states, state)
			continue
		}
		ids[id] = fileRef{f, i}
	}
	if len(ids) == 0 {
		return scan, states, nil
	}
	q := `SELECT rowid, text, line, role, idx, covered, cfrom, cto FROM msgs`
	var args []any
	if utf8.RuneCountInString(p.idxLit) >= 3 {
		// The trigram tokenizer finds the rows holding the literal (ignoring case); the
		// regexp decides.
		q += ` WHERE msgs MATCH ?`
		args = append(args, `"`+strings.ReplaceAll(rarePart(p.idxLit), `"`, `""`)+`"`)
	}
	q += ` ORDER BY rowid`
	rows, err := ix.db.Query(q, args...)
	if err != nil {
		return nil, nil, &IndexError{ix.path, err}
	}
	defer rows.Close()
	perFile := make([][]Hit, len(files))
	lastIdx := map[int64]int{}
	for rows.Next() {
		var rowid int64
		var text, role string
		var line, idx, covered, cfrom, cto int
		if err := rows.Scan(&rowid, &text, &line, &role, &idx, &covered, &cfrom, &cto); err != nil {
			return nil, nil, &IndexError{ix.path, err}
		}
		fr, ok := ids[rowid>>32]
		if !ok {
			continue
		}
		if opts.Roles != nil && !opts.Roles[role] {
			continue
		}
		if last, seen := lastIdx[rowid>>32]; seen && last == idx {
			continue // the message was reported for an earlier text
		}
		loc := p.re.FindStringIndex(text)
		if loc == nil {
			continue
		}
		lastIdx[rowid>>32] = idx
		h := Hit{Path: fr.path, Line: line, Role: role, Summary: role == "summary", Index: idx, Match: true,
			Snippet: p.snippet(text, loc[0], loc[1]), CoveredBy: covered}
		if cfrom > 0 {
			h.Span = &[2]int{cfrom, cto}
		}
		if !opts.Indexed {
			h.Index, h.CoveredBy, h.Span = -1, 0, nil
		}
		perFile[fr.pos] = append(perFile[fr.pos], h)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, &IndexError{ix.path, err}
	}
	for _, hs := range perFile {
		for _, h := range hs {
			if err := emit(h); err != nil {
				return nil, nil, err
			}
		}
	}
	return scan, states, nil
}
