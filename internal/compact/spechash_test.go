package compact

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSpecHash(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef\n"), 1500000) // 25.5 MB: several snapshots
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	want := func(start, end int64) string {
		s := sha256.Sum256(data[start:end])
		return hex.EncodeToString(s[:])
	}
	size := int64(len(data))
	for _, tc := range []struct {
		name         string
		guess, start int64
		end          int64
		late         bool // finish only after the hashing went through the whole file
	}{
		{"end known early", 17, 17, size - 170, false},
		{"end learnt late: from a snapshot", 17, 17, size - 170, true},
		{"end before the first snapshot", 17, 17, 1000, true},
		{"end on a snapshot", 0, 0, snapshotEvery * 2, true},
		{"whole file", 0, 0, size, true},
	} {
		s := newSpecHash(p)
		s.guess(tc.guess)
		if tc.late {
			s.mu.Lock()
			for !s.done {
				s.cond.Wait()
			}
			s.mu.Unlock()
		}
		sum, ok, err := s.finish(tc.start, tc.end)
		if err != nil || !ok || sum != want(tc.start, tc.end) {
			t.Errorf("%s: %v %v, digest right: %v", tc.name, ok, err, sum == want(tc.start, tc.end))
		}
		s.stop()
	}
	// A wrong guess is not used.
	s := newSpecHash(p)
	s.guess(34)
	if _, ok, err := s.finish(17, 1000); ok || err != nil {
		t.Errorf("wrong guess used: %v %v", ok, err)
	}
	// No guess at all.
	if _, ok, _ := newSpecHash(p).finish(17, 1000); ok {
		t.Error("finish without a guess")
	}
	// Stopping ends the hashing.
	s = newSpecHash(p)
	s.guess(0)
	s.stop()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		done := s.done
		s.mu.Unlock()
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("hashing did not stop")
		}
		time.Sleep(time.Millisecond)
	}
}
