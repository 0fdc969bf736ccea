package lint

import (
	"database/sql"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agent/pi/openclawstore"
)

// TestRepairExportedNamesTheSession: a session of a store is repaired on its export, a
// temporary file; what is wrong with its records is said of the session (STORE#SESSION-ID), as
// compact says it, never of the temporary file the user never named.
func TestRepairExportedNamesTheSession(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, openclawstore.FileName)
	db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: store}).String())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT,
			created_at INTEGER NOT NULL, event_zstd BLOB, event_utf8_bytes INTEGER, navigation_json TEXT,
			PRIMARY KEY (session_id, seq)) STRICT`,
		`INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES ('s1', 0, '{"name":"x","value":1}', 0)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	name := store + "#s1"
	_, err = Repair(name, RepairOptions{Output: filepath.Join(dir, "out.jsonl")})
	if err == nil || !strings.HasPrefix(err.Error(), name+":") {
		t.Errorf("repair: %v, want an error naming %s", err, name)
	}
}
