package archive

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Check is the verdict on one archive file.
type Check struct {
	Archive string `json:"archive"`
	OK      bool   `json:"ok"`
	Message string `json:"message,omitempty"`
}

// Verify reads every archive file of dest back and compares it with the manifest: its length and
// SHA-256, and the length and SHA-256 of what it decodes to. Bytes after the last recorded frame
// (a run killed while appending) are reported but are not a mismatch: the next run cuts them.
// Archive files the manifest does not list are reported as such.
func Verify(dest string) ([]Check, error) {
	if _, err := os.Stat(filepath.Join(dest, ManifestName)); err != nil {
		return nil, &ManifestError{filepath.Join(dest, ManifestName), fmt.Errorf("no archive manifest: %w", err)}
	}
	man, err := ReadManifest(dest)
	if err != nil {
		return nil, err
	}
	dec, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	defer dec.Close()
	names := make([]string, 0, len(man.Files))
	for n := range man.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Check
	for _, n := range names {
		c := Check{Archive: n, OK: true}
		if msg := verifyOne(dec, filepath.Join(dest, filepath.FromSlash(n)), man.Files[n]); msg != "" {
			c.OK, c.Message = false, msg
			if strings.HasPrefix(msg, "note: ") {
				c.OK, c.Message = true, strings.TrimPrefix(msg, "note: ")
			}
		}
		out = append(out, c)
	}
	unlisted, err := unlistedArchives(dest, man)
	for _, n := range unlisted {
		out = append(out, Check{Archive: n, OK: true, Message: "not in the manifest: not verified"})
	}
	return out, err
}

// verifyOne returns what is wrong with one archive file ("" for nothing; "note: ..." for what
// is worth saying but is not a mismatch).
func verifyOne(dec *zstd.Decoder, p string, e *Entry) string {
	if e.Damaged {
		return "note: kept as found damaged (" + e.Replaced + "): not verified"
	}
	f, err := os.Open(p)
	if os.IsNotExist(err) && e.Compressed == 0 {
		return ""
	}
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err.Error()
	}
	if st.Size() < e.Compressed {
		return fmt.Sprintf("the file has %d bytes, the manifest records %d", st.Size(), e.Compressed)
	}
	zh := sha256.New()
	if _, err := io.Copy(zh, io.NewSectionReader(f, 0, e.Compressed)); err != nil {
		return err.Error()
	}
	if got := hex.EncodeToString(zh.Sum(nil)); got != e.ZstSHA256 {
		return fmt.Sprintf("its bytes differ from those recorded (sha256 %.12s, manifest %.12s)", got, e.ZstSHA256)
	}
	if err := dec.Reset(io.NewSectionReader(f, 0, e.Compressed)); err != nil {
		return "does not decode: " + err.Error()
	}
	ph := sha256.New()
	n, err := io.Copy(ph, dec)
	if err != nil {
		return "does not decode: " + err.Error()
	}
	if got := hex.EncodeToString(ph.Sum(nil)); n != e.PlainLen() || got != e.SHA256 {
		return fmt.Sprintf("decodes to %d bytes (sha256 %.12s), the manifest records %d (sha256 %.12s)", n, got, e.PlainLen(), e.SHA256)
	}
	if st.Size() > e.Compressed {
		return fmt.Sprintf("note: %d bytes after the last recorded frame (an interrupted run; the next run cuts them)", st.Size()-e.Compressed)
	}
	return ""
}

// unlistedArchives lists the .zst files under dest that the manifest does not name.
func unlistedArchives(dest string, man *Manifest) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".zst") {
			return nil
		}
		rel, err := filepath.Rel(dest, p)
		if err != nil {
			return err
		}
		if _, ok := man.Files[filepath.ToSlash(rel)]; !ok {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out, err
}
