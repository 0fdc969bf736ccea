package grep

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/tidwall/gjson"
	_ "modernc.org/sqlite" // pure-Go SQLite with FTS5
)

// indexSchema is the version of the index's tables; another version is rebuilt.
const indexSchema = "3"

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

// Index is an SQLite FTS5 index of the messages of sessions. Each searchable text of a message
// (as grep decodes it) is cut into pieces of about 2 KB, one row each, with the file, line,
// role, time, message index and covering compaction: a query with thousands of hits in long
// tool outputs then reads the pieces that hold the pattern, not whole texts (it was reading
// 170 MB back for 2,000 hits). A row's rowid is file<<32 | text<<12 | piece (fileShift,
// pieceBits), so a file's rows are replaced by a range delete and a text's pieces are a range;
// a file's rows and its (size, mtime) are written in one transaction, so an update killed at
// any moment leaves each file either as it was or fully updated.
type Index struct {
	db    *sql.DB
	path  string
	piece pieceSizes
}

// pieceSizes say how texts are cut: each piece owns at least own bytes of its text (the bytes
// it answers for) and holds before and after bytes of its neighbours as well, so that a match
// and its snippet near the edge are in one row. after must hold a rarePart (32 bytes), so
// that every occurrence is found whole in the piece that owns its start.
type pieceSizes struct{ own, before, after int }

var defaultPieces = pieceSizes{own: 2048, before: 128, after: 256}

const (
	pieceBits = 12 // pieces of a text: at most 1<<pieceBits (longer texts get longer pieces)
	fileShift = 32 // a rowid's file is rowid>>fileShift
	textBits  = fileShift - pieceBits
	fileRows  = 1<<fileShift - 1 // the text and piece bits of a rowid: a file's rows are id<<fileShift | 0..fileRows
)

// trigramLen is the length of the index's tokens (FTS5's trigram tokenizer): a literal shorter
// than that cannot be looked up.
const trigramLen = 3

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
	db.SetMaxOpenConns(2) // a search reads on two
	ix := &Index{db: db, path: path, piece: defaultPieces}
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
		// piece: a piece of a text; meta: what pieceRow.meta writes (where the piece is in its
		// text, and the text's message), one column: a search reads it for thousands of rows,
		// and each column read costs about as much as the bytes of a piece.
		`CREATE VIRTUAL TABLE msgs USING fts5(piece, meta UNINDEXED, time UNINDEXED, tokenize='trigram')`,
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
		info, err := transcript.Stat(abs)
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
				if _, err := transcript.Stat(p); errors.Is(err, os.ErrNotExist) {
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
		tx.Exec(`DELETE FROM msgs WHERE rowid BETWEEN ? AND ?`, id<<fileShift, id<<fileShift|fileRows)
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
		if _, err := tx.Exec(`DELETE FROM msgs WHERE rowid BETWEEN ? AND ?`, id<<fileShift, id<<fileShift|fileRows); err != nil {
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
	if len(rows) > 1<<textBits {
		return 0, fmt.Errorf("%s: %d texts, more than the index holds for one file (%d)", path, len(rows), 1<<textBits)
	}
	st, err := tx.Prepare(`INSERT INTO msgs(rowid, piece, meta, time) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	for n, r := range rows {
		for k, pc := range cutText(r.text, ix.piece) {
			rowid := id<<fileShift | int64(n)<<pieceBits | int64(k)
			row := pieceRow{start: pc.start, own0: pc.own0, own1: pc.own1, tlen: len(r.text), line: r.line, role: r.role, idx: r.idx, covered: r.covered, cfrom: r.cfrom, cto: r.t}
			if _, err := st.Exec(rowid, r.text[pc.start:pc.end], row.meta(), r.time); err != nil {
				return 0, err
			}
		}
	}
	return msgs, tx.Commit()
}

// textPiece is a piece of a text: text[start:end], owning text[own0:own1].
type textPiece struct{ start, end, own0, own1 int }

// cutText cuts a text into pieces at rune starts: the owned parts tile the text.
func cutText(text string, sz pieceSizes) []textPiece {
	own := max(sz.own, (len(text)+(1<<pieceBits)-1)>>pieceBits)
	var out []textPiece
	for own0 := 0; ; {
		own1 := runeStartAfter(text, own0+own)
		start := max(0, own0-sz.before)
		for start > 0 && !utf8.RuneStart(text[start]) {
			start--
		}
		out = append(out, textPiece{start: start, end: runeStartAfter(text, own1+sz.after), own0: own0, own1: own1})
		if own1 == len(text) {
			return out
		}
		own0 = own1
	}
}

// runeStartAfter is the first rune start at or after i, or len(s).
func runeStartAfter(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

// eachMessage calls fn with each message of a file's history (as grep --json reads it: copies
// left out), its index, a Hit carrying its covering compaction, and its line's bytes.
func eachMessage(path string, format transcript.Format, size int64, fn func(m *transcript.Message, idx int, h *Hit, line []byte) error) error {
	f, _, err := transcript.OpenFile(path)
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
	lr := jsonl.NewLineReader(io.NewSectionReader(f, 0, size))
	each := func(l jsonl.Line) error {
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

// rarePart is the part of a literal to look up in the trigram index: a phrase reads the lists
// of all its trigrams, and checks where they are in each row that holds them all, which costs
// more than reading a few more rows for common trigrams ("the", "req"); a part finds nearly
// the same rows, and the regexp decides on each. Which part: the end and start of two words
// side by side when there are (six characters: two words together are far rarer than either;
// in the benchmark's archive "transcript" is in three pieces of four, "pt ses" in one of
// fifty), else eight characters around the rarest-looking ones (digits and punctuation before
// lower-case letters).
func rarePart(lit string) string {
	rs := []rune(lit)
	if len(rs) <= 6 {
		return lit
	}
	score := func(part []rune) int {
		s := 0
		for _, r := range part {
			if r < 128 {
				s += byteRank(byte(r))
			} else {
				s += 30
			}
		}
		return s
	}
	word := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	var best []rune
	for k := 2; k < len(rs); k++ {
		if !word(rs[k-2]) || !word(rs[k-1]) || word(rs[k]) {
			continue
		}
		j := k // the separator: rs[k:j]
		for j < len(rs) && !word(rs[j]) {
			j++
		}
		if j-k > 2 || j+3 > len(rs) || !word(rs[j+1]) || !word(rs[j+2]) {
			continue
		}
		if part := rs[k-2 : j+3]; best == nil || score(part) < score(best) {
			best = part
		}
	}
	if best != nil {
		return string(best)
	}
	const n = 8
	if len(rs) <= n {
		return lit
	}
	bestAt, bestScore := 0, 0
	for i := 0; i+n <= len(rs); i++ {
		if s := score(rs[i : i+n]); i == 0 || s < bestScore {
			bestAt, bestScore = i, s
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
func (ix *Index) Search(files []string, p *Pattern, opts Options, emit func(Hit) error) (scan []string, states []string, err error) {
	// One read transaction: the search sees one state of the index (the files' sizes and
	// times with their rows), and its statements do not each begin one.
	tx, err := ix.db.Begin()
	if err != nil {
		return nil, nil, &IndexError{ix.path, err}
	}
	defer tx.Rollback()
	ids, scan, states, err := ix.freshFiles(tx, files)
	if err != nil {
		return nil, nil, err
	}
	if len(ids) == 0 {
		return scan, states, nil
	}
	ps := &pieceSearch{p: p, ids: ids, roles: opts.Roles}
	var texts []*textResult
	if utf8.RuneCountInString(p.idxLit) >= trigramLen {
		// The trigram index finds the pieces holding the literal (ignoring case); the regexp
		// decides on each.
		ps.phrase = `"` + strings.ReplaceAll(rarePart(p.idxLit), `"`, `""`) + `"`
		texts, err = ix.searchPieces(tx, ps)
	} else {
		// No literal to look up: every text, put back together from its pieces.
		texts, err = ps.allTexts(tx)
	}
	if err != nil {
		return nil, nil, &IndexError{ix.path, err}
	}
	for _, hs := range filesHits(texts, ids, len(files), opts.Indexed) {
		for _, h := range hs {
			if err := emit(h); err != nil {
				return nil, nil, err
			}
		}
	}
	return scan, states, nil
}

// freshFiles sorts files into those the index answers for (ids: the fresh ones, by their id in
// the index) and those to scan, with their state.
func (ix *Index) freshFiles(tx *sql.Tx, files []string) (ids map[int64]fileRef, scan, states []string, err error) {
	known, err := ix.indexedFiles(tx, len(files))
	if err != nil {
		return nil, nil, nil, &IndexError{ix.path, err}
	}
	ids = map[int64]fileRef{}
	for i, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, nil, nil, err
		}
		id, size, mtime, err := known(abs)
		state := StateFresh
		if err != nil {
			if !errors.Is(err, sql.ErrNoRows) {
				return nil, nil, nil, &IndexError{ix.path, err}
			}
			state = StateMissing
		} else if info, serr := transcript.Stat(abs); serr != nil || info.Size() != size || info.ModTime().UnixNano() != mtime {
			state = StateStale
		}
		if state != StateFresh {
			scan = append(scan, f)
			states = append(states, state)
			continue
		}
		ids[id] = fileRef{f, i}
	}
	return ids, scan, states, nil
}

// filesHits are the hits of the texts found (in order of rowids), per file in the order of the
// n files asked for: a message once, for the first of its texts that matches; without indexed,
// without message indexes and covering compactions.
func filesHits(texts []*textResult, ids map[int64]fileRef, n int, indexed bool) [][]Hit {
	perFile := make([][]Hit, n)
	lastIdx := map[int64]int{}
	for _, t := range texts {
		file := t.rowid >> fileShift
		if last, seen := lastIdx[file]; !t.found || (seen && last == t.meta.idx) {
			continue
		}
		lastIdx[file] = t.meta.idx
		fr, pc := ids[file], &t.meta
		h := Hit{Path: fr.path, Line: pc.line, Role: pc.role, Summary: pc.role == "summary", Index: pc.idx, Match: true,
			Snippet: t.sn, CoveredBy: pc.covered}
		if pc.cfrom > 0 {
			h.Span = &[2]int{pc.cfrom, pc.cto}
		}
		if !indexed {
			h.Index, h.CoveredBy, h.Span = -1, 0, nil
		}
		perFile[fr.pos] = append(perFile[fr.pos], h)
	}
	return perFile
}

// pieceSearch is a search of the index's rows: the pattern, the phrase the trigram index looks
// up, the files the index answers for (by id) and the roles asked for (nil: all).
type pieceSearch struct {
	p      *Pattern
	phrase string
	ids    map[int64]fileRef
	roles  map[string]bool
}

// wants reports whether a row is one of a file and a role asked for.
func (ps *pieceSearch) wants(rowid int64, pc *pieceRow) bool {
	_, ok := ps.ids[rowid>>fileShift]
	return ok && (ps.roles == nil || ps.roles[pc.role])
}

// allTexts looks for the first match of every text of the files asked for, each put back
// together from its pieces.
func (ps *pieceSearch) allTexts(tx *sql.Tx) ([]*textResult, error) {
	var texts []*textResult
	err := eachText(tx, pieceRows+` ORDER BY id`, nil, func(rowid int64, pc *pieceRow, text string) error {
		if !ps.wants(rowid, pc) {
			return nil
		}
		t := &textResult{rowid: rowid, meta: *pc}
		t.meta.piece = ""
		if loc, ok := ps.p.find(text); ok {
			t.found, t.sn = true, ps.p.snippet(text, loc[0], loc[1])
		}
		texts = append(texts, t)
		return nil
	})
	return texts, err
}

// indexedFiles returns a lookup of the indexed files' rows by path (sql.ErrNoRows: not
// indexed): for many files, all rows read at once (a statement per file costs more than the
// whole table of an archive's sessions); for a few, one statement each.
func (ix *Index) indexedFiles(tx *sql.Tx, n int) (func(path string) (id, size, mtime int64, err error), error) {
	type fileRow struct{ id, size, mtime int64 }
	if n >= 64 {
		rows, err := tx.Query(`SELECT path, id, size, mtime FROM files`)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		all := map[string]fileRow{}
		for rows.Next() {
			var p string
			var r fileRow
			if err := rows.Scan(&p, &r.id, &r.size, &r.mtime); err != nil {
				return nil, err
			}
			all[p] = r
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
		return func(path string) (int64, int64, int64, error) {
			r, ok := all[path]
			if !ok {
				return 0, 0, 0, sql.ErrNoRows
			}
			return r.id, r.size, r.mtime, nil
		}, nil
	}
	return func(path string) (id, size, mtime int64, err error) {
		err = tx.QueryRow(`SELECT id, size, mtime FROM files WHERE path = ?`, path).Scan(&id, &size, &mtime)
		return id, size, mtime, err
	}, nil
}

// fileRef is a file asked for: its path as given and its position in the list.
type fileRef struct {
	path string
	pos  int
}

// textResult is what a search found in one text: the first match's snippet, if any.
type textResult struct {
	rowid int64    // of the text's first piece read
	meta  pieceRow // the text's row, without the piece
	found bool
	sn    Snippet
	// The pieces read so far could not tell: needMore, the text's next candidate pieces may;
	// needWhole, only the whole text can.
	needMore, needWhole bool
	cands               string // the rowids of the text's candidate pieces (in no set order)
	at                  int64  // the rowid of the last piece decided on
}

// nextCandidate returns the rowid of the text's first candidate piece after the last one
// decided on (-1: none).
func (t *textResult) nextCandidate() (int64, error) {
	if t.at == 0 {
		t.at = t.rowid
	}
	next := int64(-1)
	for rest := t.cands; rest != ""; {
		item, tail, _ := strings.Cut(rest, ",")
		rest = tail
		id, err := strconv.ParseInt(item, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("damaged: a candidate list %q", t.cands)
		}
		if id > t.at && (next < 0 || id < next) {
			next = id
		}
	}
	return next, nil
}

// decide looks for the text's first match in one of its pieces.
func (t *textResult) decide(p *Pattern, pc *pieceRow) {
	sn, found, sure := p.pieceMatch(pc)
	t.found, t.sn, t.needMore, t.needWhole = found, sn, sure && !found, !sure
}

// querier is a transaction or a database.
type querier interface {
	Query(q string, args ...any) (*sql.Rows, error)
}

// pieceRow is a row of msgs: a piece of a text and what the text belongs to.
type pieceRow struct {
	piece                    string
	start, own0, own1, tlen  int
	line                     int
	role                     string
	idx, covered, cfrom, cto int
}

// pieceRows are the rows of msgs as stored: the rows are read from FTS5's content table
// (msgs_content, its columns c0... in the order of msgs's columns, id its rowid) by rowid
// directly, which costs half what the same read through the virtual table does.
const pieceRows = `SELECT id, ` + pieceColumns + ` FROM msgs_content`

const pieceColumns = `c0, c1`

// meta writes what a row says besides its piece: "start own0 own1 tlen line idx covered cfrom
// cto role".
func (pc *pieceRow) meta() string {
	return fmt.Sprintf("%d %d %d %d %d %d %d %d %d %s", pc.start, pc.own0, pc.own1, pc.tlen, pc.line, pc.idx, pc.covered, pc.cfrom, pc.cto, pc.role)
}

// setMeta reads what meta wrote.
func (pc *pieceRow) setMeta(m string) error {
	for _, f := range []*int{&pc.start, &pc.own0, &pc.own1, &pc.tlen, &pc.line, &pc.idx, &pc.covered, &pc.cfrom, &pc.cto} {
		sp := strings.IndexByte(m, ' ')
		if sp < 0 {
			return fmt.Errorf("damaged: a row's meta %q", m)
		}
		n, err := strconv.Atoi(m[:sp])
		if err != nil {
			return fmt.Errorf("damaged: a row's meta: %v", err)
		}
		*f, m = n, m[sp+1:]
	}
	pc.role = m
	return nil
}

// searchPieces finds the first match of each text of the files asked for that has pieces
// matching the phrase, and returns the texts in order. Each step is one statement (a statement
// per row costs more than the row: about 50 µs): first the first candidate piece of each text,
// which for a pattern of bounded length is nearly always where the first match is; then, for
// the texts it could not decide, their other candidate pieces; last, whole texts.
func (ix *Index) searchPieces(tx *sql.Tx, ps *pieceSearch) ([]*textResult, error) {
	texts, err := ix.inHalves(tx, ps)
	if err != nil {
		return nil, err
	}
	// In order of rowids, which is the texts' order (sorted here: sorting the rows, pieces
	// and all, in SQLite costs more).
	sort.Slice(texts, func(i, j int) bool { return texts[i].rowid < texts[j].rowid })
	return texts, ps.wholeTexts(tx, texts)
}

// inHalves runs ps.candidates over the rows of the files asked for: with more than one core,
// the files in two halves on two connections (the other one's read transaction may see a
// later state of the index, where files changed since this one's were checked have the rows of
// what they hold now: lines of the files as they are, never as they were).
func (ix *Index) inHalves(tx *sql.Tx, ps *pieceSearch) ([]*textResult, error) {
	fileIDs := make([]int64, 0, len(ps.ids))
	for id := range ps.ids {
		fileIDs = append(fileIDs, id)
	}
	sort.Slice(fileIDs, func(i, j int) bool { return fileIDs[i] < fileIDs[j] })
	lo, hi := fileIDs[0]<<fileShift, fileIDs[len(fileIDs)-1]<<fileShift|fileRows
	split := fileIDs[len(fileIDs)/2] << fileShift
	if runtime.GOMAXPROCS(0) <= 1 || split <= lo {
		return ps.candidates(tx, lo, hi)
	}
	type half struct {
		texts []*textResult
		err   error
	}
	second := make(chan half, 1)
	go func() {
		var h half
		h.texts, h.err = ix.candidatesApart(ps, split, hi)
		second <- h
	}()
	texts, err := ps.candidates(tx, lo, split-1)
	h := <-second
	if err != nil {
		return nil, err
	}
	if h.err != nil {
		return nil, h.err
	}
	return append(texts, h.texts...), nil
}

// candidatesApart runs ps.candidates on rows lo..hi in a read transaction of a connection of
// its own.
func (ix *Index) candidatesApart(ps *pieceSearch, lo, hi int64) ([]*textResult, error) {
	conn, err := ix.db.Conn(context.Background())
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	tx, err := conn.BeginTx(context.Background(), nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	return ps.candidates(tx, lo, hi)
}

// candidates decides on the texts of rows lo..hi that have pieces matching the phrase from
// their candidate pieces: the first one of each text and the list of the others in one
// statement, then the texts whose first candidate could not tell (nearly always: its match is
// near its end, without room for the snippet) their next candidate piece each, in rounds until
// every text is decided (a long tool output can have hundreds of candidates, and the next one
// nearly always tells). The texts that no piece can decide on are left needWhole.
func (ps *pieceSearch) candidates(q querier, lo, hi int64) ([]*textResult, error) {
	var texts, more []*textResult
	var rest string
	err := eachRow(q, `SELECT c.id, `+prefixed("c.", pieceColumns)+`, g.cands FROM (SELECT min(rowid) AS first, group_concat(rowid) AS cands
			FROM msgs WHERE msgs MATCH ? AND rowid BETWEEN ? AND ? GROUP BY rowid>>`+fmt.Sprint(pieceBits)+`) g JOIN msgs_content c ON c.id = g.first`,
		[]any{ps.phrase, lo, hi}, []any{&rest}, func(rowid int64, pc *pieceRow) error {
			if !ps.wants(rowid, pc) {
				return nil
			}
			t := &textResult{rowid: rowid, meta: *pc}
			t.meta.piece = ""
			t.decide(ps.p, pc)
			texts = append(texts, t)
			if t.needMore {
				t.cands = rest
				more = append(more, t)
			}
			return nil
		})
	for err == nil && len(more) > 0 {
		more, err = ps.nextCandidates(q, more)
	}
	return texts, err
}

// nextCandidates decides on the next candidate piece of each text of more, in one statement,
// and returns the texts still undecided (none is left for a text without another candidate:
// it has no match).
func (ps *pieceSearch) nextCandidates(q querier, more []*textResult) ([]*textResult, error) {
	next := map[int64]*textResult{}
	var list strings.Builder
	list.WriteByte('[')
	for _, t := range more {
		id, err := t.nextCandidate()
		if err != nil {
			return nil, err
		}
		if id < 0 {
			t.needMore = false // no candidate left: no match
			continue
		}
		next[id] = t
		if list.Len() > 1 {
			list.WriteByte(',')
		}
		fmt.Fprint(&list, id)
	}
	list.WriteByte(']')
	more = more[:0]
	if len(next) == 0 {
		return nil, nil
	}
	err := eachRow(q, pieceRows+` WHERE id IN (SELECT value FROM json_each(?))`, []any{list.String()}, nil,
		func(rowid int64, pc *pieceRow) error {
			if t := next[rowid]; t != nil {
				t.at = rowid
				t.decide(ps.p, pc)
				if t.needMore {
					more = append(more, t)
				}
			}
			return nil
		})
	return more, err
}

// wholeTexts decides on the texts (in order of rowids) that their pieces could not decide on:
// each read whole, a range of rows.
func (ps *pieceSearch) wholeTexts(tx *sql.Tx, texts []*textResult) error {
	byText := map[int64]*textResult{}
	whole := 0
	for _, t := range texts {
		byText[t.rowid>>pieceBits] = t
		if t.needWhole {
			whole++
		}
	}
	if whole == 0 {
		return nil
	}
	q := `SELECT m.id, ` + prefixed("m.", pieceColumns) + ` FROM json_each(?) j, msgs_content m
		WHERE m.id BETWEEN j.value<<` + fmt.Sprint(pieceBits) + ` AND (j.value<<` + fmt.Sprint(pieceBits) + `)+` + fmt.Sprint(1<<pieceBits-1)
	return eachText(tx, q, []any{textList(texts, func(t *textResult) bool { return t.needWhole })}, func(rowid int64, _ *pieceRow, text string) error {
		if t := byText[rowid>>pieceBits]; t != nil && t.needWhole {
			t.needWhole = false
			if loc, ok := ps.p.find(text); ok {
				t.found, t.sn = true, ps.p.snippet(text, loc[0], loc[1])
			}
		}
		return nil
	})
}

// textList is a JSON array of the texts (rowid>>pieceBits) that want says, for json_each.
func textList(texts []*textResult, want func(*textResult) bool) string {
	var b strings.Builder
	b.WriteByte('[')
	for _, t := range texts {
		if want(t) {
			if b.Len() > 1 {
				b.WriteByte(',')
			}
			fmt.Fprint(&b, t.rowid>>pieceBits)
		}
	}
	b.WriteByte(']')
	return b.String()
}

// prefixed puts prefix before each name of a list of columns.
func prefixed(prefix, columns string) string {
	return prefix + strings.ReplaceAll(columns, ", ", ", "+prefix)
}

// eachRow runs a query of pieceRows (and the columns extra scans into) and calls fn with each.
func eachRow(tx querier, q string, args, extra []any, fn func(rowid int64, pc *pieceRow) error) error {
	rows, err := tx.Query(q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var pc pieceRow
	var rowid int64
	var meta string
	dest := append([]any{&rowid, &pc.piece, &meta}, extra...)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if err := pc.setMeta(meta); err != nil {
			return err
		}
		if err := fn(rowid, &pc); err != nil {
			return err
		}
	}
	return rows.Err()
}

// eachText runs a query of pieceRows that gives the pieces of each text
// together and in order, puts the texts back together, and calls fn with each, the rowid and
// row of its first piece. Pieces that do not tile their text are an error (a damaged index).
func eachText(tx *sql.Tx, q string, args []any, fn func(rowid int64, pc *pieceRow, text string) error) error {
	var text []byte
	var first pieceRow
	var firstID int64
	err := eachRow(tx, q, args, nil, func(rowid int64, pc *pieceRow) error {
		if rowid&(1<<pieceBits-1) == 0 {
			first, firstID, text = *pc, rowid, text[:0]
		}
		if rowid>>pieceBits != firstID>>pieceBits || pc.own0 != len(text) || pc.start > pc.own0 || pc.own1-pc.start > len(pc.piece) || pc.own1 > pc.tlen {
			return fmt.Errorf("damaged: row %d does not continue its text", rowid)
		}
		text = append(text, pc.piece[pc.own0-pc.start:pc.own1-pc.start]...)
		if pc.own1 == pc.tlen {
			return fn(firstID, &first, string(text))
		}
		return nil
	})
	return err
}

// pieceMatch looks for the text's first match in a piece, which is called in order of the
// text's pieces while none had a match that starts in the part of the text it answers for:
// with no assertion in the pattern and matches of at most maxLen bytes, the regexp gives the
// same answer at each position of that part (and the snippet is the same) as on the whole text
// when the piece holds maxLen bytes before the part and after it. sure is false when it cannot
// tell: the text must be read whole.
func (p *Pattern) pieceMatch(pc *pieceRow) (sn Snippet, found, sure bool) {
	n := p.maxLen
	end := pc.start + len(pc.piece)
	if n < 0 || (pc.start > 0 && pc.start > pc.own0-n) || (end < pc.tlen && end < pc.own1+n) {
		return Snippet{}, false, false
	}
	loc, found := p.find(pc.piece)
	switch {
	case !found:
		return Snippet{}, false, true
	case pc.start+loc[0] < pc.own0-n:
		// A match owned by an earlier piece, which the trigram index should have picked.
		return Snippet{}, false, false
	case pc.start+loc[0] >= pc.own1:
		// A match in the bytes after the owned part. The pieces are decided in order and only
		// while none before had a match in its owned part, so none starts before this one's
		// owned part: this is the text's first match when the piece holds maxLen bytes from
		// it. Else (or without room for its snippet) the next piece, which owns it, tells.
		if end < pc.tlen && pc.start+loc[0]+n > end {
			return Snippet{}, false, true
		}
		sn, ok := p.snippetIn(pc.piece, pc.start, pc.tlen, loc[0], loc[1])
		return sn, ok, true
	}
	sn, ok := p.snippetIn(pc.piece, pc.start, pc.tlen, loc[0], loc[1])
	return sn, ok, ok
}
