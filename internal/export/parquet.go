package export

import (
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ctxc/ctxc/internal/parquet"
	"github.com/ctxc/ctxc/internal/safewrite"
)

// SchemaVersionKey is the key of the schema version in every file's key-value metadata.
const SchemaVersionKey = "ctxc.schema_version"

// writePart writes rows as one Parquet file (zstd pages) at path, atomically: a reader sees
// the old part or the new one, never a part written halfway.
func writePart[T any](path string, rows []T) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return safewrite.WriteAtomic(path, func(w io.Writer) error {
		return parquet.Write(w, rows, parquet.KeyValue{Key: SchemaVersionKey, Value: strconv.Itoa(SchemaVersion)})
	})
}
