package parquet

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// duckdb runs one SQL statement in DuckDB (scripts/duckdb.sh) and returns its rows; the test
// skips without it. DuckDB, a reader ctxc does not share code with, says what a file holds.
func duckdb(t *testing.T, sql string) []map[string]any {
	t.Helper()
	bin := os.Getenv("CTXC_DUCKDB")
	if bin == "" {
		t.Skip("CTXC_DUCKDB is not set: install DuckDB with eval \"$(scripts/duckdb.sh)\"")
	}
	out, err := exec.Command(bin, sql).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("duckdb %s: %v\n%s", sql, err, msg)
	}
	var rows []map[string]any
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("duckdb output: %v\n%s", err, out)
	}
	return rows
}

type item struct {
	Name  string   `parquet:"name"`
	Count int64    `parquet:"count"`
	Score *float64 `parquet:"score"`
}

// kinds has a column of every kind the writer knows.
type kinds struct {
	I32   int32      `parquet:"i32"`
	I64   int64      `parquet:"i64"`
	F64   float64    `parquet:"f64"`
	S     string     `parquet:"s"`
	T     time.Time  `parquet:"t"`
	OptT  *time.Time `parquet:"opt_t"`
	OptF  *float64   `parquet:"opt_f"`
	OptI  *int64     `parquet:"opt_i"`
	OptS  *string    `parquet:"opt_s"`
	Items []item     `parquet:"items"`
}

func writeFile(t *testing.T, rows []kinds) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f.parquet")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(f, rows, KeyValue{"ctxc.schema_version", "1"}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

func ptr[T any](v T) *T { return &v }

// sample is rows of every kind of value: nulls, empty strings and lists, non-ASCII text, a
// string of 1 MB (a page of its own), negative and extreme numbers.
func sample() []kinds {
	big := strings.Repeat("0123456789abcdeé", 1<<16)
	at := time.Date(2026, 11, 28, 14, 30, 5, 123_000_000, time.UTC)
	var rows []kinds
	for i := range 2100 {
		r := kinds{I32: int32(i) - 1000, I64: int64(i) << 40, F64: float64(i) / 4, S: fmt.Sprint("row ", i), T: at.Add(time.Duration(i) * time.Millisecond)}
		if i%3 == 0 {
			r.OptT, r.OptF, r.OptI, r.OptS = ptr(at.Add(-time.Hour)), ptr(-0.5), ptr(int64(-i)), ptr("")
		}
		for j := range i % 4 {
			it := item{Name: fmt.Sprint("é", j), Count: int64(j)}
			if j%2 == 1 {
				it.Score = ptr(float64(j))
			}
			r.Items = append(r.Items, it)
		}
		rows = append(rows, r)
	}
	rows[1].S = ""
	rows[2].S = "日本語 — ünïcödé 🙂"
	rows[3].S = big
	rows[4].I64, rows[4].I32 = -1<<63, -1<<31
	rows[5].S = big + "x" // a second page starts after the first MB of values
	return rows
}

// TestDuckDBReadsEveryKind: DuckDB reads back every value of every column kind the writer
// writes, in pages of 1 MB and in pages of a few rows (a list's levels spread over pages).
func TestDuckDBReadsEveryKind(t *testing.T) {
	for _, size := range []int{pageSize, 100} {
		t.Run(fmt.Sprint("pages of ", size, " bytes"), func(t *testing.T) {
			defer func(was int) { pageSize = was }(pageSize)
			pageSize = size
			checkEveryKind(t)
		})
	}
}

func checkEveryKind(t *testing.T) {
	rows := sample()
	p := writeFile(t, rows)
	got := duckdb(t, fmt.Sprintf(`select i32, i64, f64, case when length(s) > 1000 then md5(s) else s end as s, epoch_ms(t) as t,
		epoch_ms(opt_t) as opt_t, opt_f, opt_i, opt_s, to_json(items) as items
		from read_parquet('%s') order by i64 asc, i32 asc`, p))
	if len(got) != len(rows) {
		t.Fatalf("DuckDB reads %d rows, %d written", len(got), len(rows))
	}
	// DuckDB orders by i64 then i32: row 4 (the smallest i64) first, then the others in order.
	order := append([]int{4}, 0, 1, 2, 3)
	for i := 5; i < len(rows); i++ {
		order = append(order, i)
	}
	for k, i := range order {
		want := expected(rows[i])
		var items any
		json.Unmarshal([]byte(got[k]["items"].(string)), &items)
		b, _ := json.Marshal(items)
		got[k]["items"] = string(b)
		if g := fmt.Sprint(got[k]); g != fmt.Sprint(want) {
			t.Fatalf("row %d:\n got %v\nwant %v", i, g, want)
		}
	}
	kv := duckdb(t, fmt.Sprintf(`select key, value from parquet_kv_metadata('%s')`, p))
	if len(kv) != 1 || kv[0]["key"] != "ctxc.schema_version" || kv[0]["value"] != "1" {
		t.Fatalf("key-value metadata: %v", kv)
	}
	types := duckdb(t, fmt.Sprintf(`select column_name, column_type from (describe select * from read_parquet('%s'))`, p))
	want := "[map[column_name:i32 column_type:INTEGER] map[column_name:i64 column_type:BIGINT] map[column_name:f64 column_type:DOUBLE] map[column_name:s column_type:VARCHAR] map[column_name:t column_type:TIMESTAMP WITH TIME ZONE] map[column_name:opt_t column_type:TIMESTAMP WITH TIME ZONE] map[column_name:opt_f column_type:DOUBLE] map[column_name:opt_i column_type:BIGINT] map[column_name:opt_s column_type:VARCHAR] map[column_name:items column_type:STRUCT(\"name\" VARCHAR, count BIGINT, score DOUBLE)[]]]"
	if fmt.Sprint(types) != want {
		t.Fatalf("types:\n%v\nwant\n%v", types, want)
	}
}

// expected is a row as DuckDB's JSON gives it: big integers and timestamps' milliseconds as
// strings, the long strings by their MD5.
func expected(r kinds) map[string]any {
	s := r.S
	if len(s) > 1000 {
		sum := md5.Sum([]byte(s))
		s = hex.EncodeToString(sum[:])
	}
	m := map[string]any{"i32": float64(r.I32), "i64": fmt.Sprint(r.I64), "f64": r.F64, "s": s,
		"t": fmt.Sprint(r.T.UnixMilli()), "opt_t": nil, "opt_f": nil, "opt_i": nil, "opt_s": nil}
	if r.OptT != nil {
		m["opt_t"], m["opt_f"], m["opt_i"], m["opt_s"] = fmt.Sprint(r.OptT.UnixMilli()), *r.OptF, fmt.Sprint(*r.OptI), *r.OptS
	}
	items := []map[string]any{}
	for _, it := range r.Items {
		var score any
		if it.Score != nil {
			score = *it.Score
		}
		items = append(items, map[string]any{"name": it.Name, "count": it.Count, "score": score})
	}
	b, _ := json.Marshal(items)
	m["items"] = string(b)
	return m
}

// TestDuckDBReadsZeroRows: a file of no rows is a table of no rows with every column.
func TestDuckDBReadsZeroRows(t *testing.T) {
	p := writeFile(t, nil)
	got := duckdb(t, fmt.Sprintf(`select count(*) as n, count(items) as items from read_parquet('%s')`, p))
	if fmt.Sprint(got) != "[map[items:0 n:0]]" {
		t.Fatalf("%v", got)
	}
	cols := duckdb(t, fmt.Sprintf(`select count(*) as n from (describe select * from read_parquet('%s'))`, p))
	if fmt.Sprint(cols) != "[map[n:10]]" {
		t.Fatalf("%v", cols)
	}
}
