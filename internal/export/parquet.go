package export

import (
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
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
		pw := parquet.NewGenericWriter[T](w, parquet.Compression(&zstd.Codec{}),
			parquet.KeyValueMetadata(SchemaVersionKey, strconv.Itoa(SchemaVersion)),
			// The bounds of a message's text would copy a whole message into the footer (8% of
			// the files): no query filters on them.
			parquet.SkipPageBounds("text"))
		if _, err := pw.Write(rows); err != nil {
			return err
		}
		return pw.Close()
	})
}
