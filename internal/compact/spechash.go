package compact

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"os"
	"sync"
)

// specHash computes the marker's source hash while the file is still being read. The hash is
// over the span of lines from the middle's first line to the end of the last line before the
// tail, and SHA-256 runs on one core: started after the whole file is read, it is the last
// thing a compaction waits for. The middle's start is known early in the usual case (the line
// after the first user turn: HeadWatch guesses it from the messages as they are
// read), so hashing starts then, from the guess, keeping the state every snapshotEvery bytes;
// once the zones are known and the guess was right, the hash is finished up to the span's end
// from the nearest state. A wrong guess costs only the wasted hashing: the span is then
// hashed as before (hashSpan).
type specHash struct {
	path string

	mu      sync.Mutex
	cond    *sync.Cond
	start   int64 // the guessed start, -1 until guessed
	end     int64 // where to stop, -1 until known
	stopped bool
	done    bool
	at      int64 // hashed up to here
	snaps   []snapshot
	sum     []byte // at end, when reached
	err     error
}

type snapshot struct {
	off   int64
	state []byte
}

const snapshotEvery = 4 << 20

func newSpecHash(path string) *specHash {
	s := &specHash{path: path, start: -1, end: -1}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// guess starts hashing at off (called once, by HeadWatch, on the reading goroutine).
func (s *specHash) guess(off int64) {
	s.mu.Lock()
	s.start = off
	s.mu.Unlock()
	go s.run(off)
}

func (s *specHash) run(start int64) {
	err := s.hashFrom(start)
	s.mu.Lock()
	if err != nil && s.err == nil {
		s.err = err
	}
	s.done = true
	s.cond.Broadcast()
	s.mu.Unlock()
}

func (s *specHash) hashFrom(start int64) error {
	f, err := os.Open(s.path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	view, release, err := openView(f, start, info.Size())
	if err != nil {
		return err
	}
	defer release()
	return faultsAsErrors(s.path, func() error { return s.hashMapped(view, start, info.Size()) })
}

// hashMapped hashes [start, limit) through view, keeping a state every snapshotEvery bytes and
// stopping at the span's end once finish has told it.
func (s *specHash) hashMapped(view func(off, n int64) ([]byte, error), start, limit int64) error {
	h := sha256.New()
	for off := start; off < limit; {
		s.mu.Lock()
		stop, end := s.stopped, s.end
		s.mu.Unlock()
		if stop || (end >= 0 && off >= end) {
			break
		}
		n := min(snapshotEvery-(off-start)%snapshotEvery, limit-off)
		if end >= 0 && off+n > end {
			n = end - off
		}
		b, err := view(off, n)
		if err != nil {
			return err
		}
		h.Write(b)
		off += n
		snap := (off-start)%snapshotEvery == 0
		var state []byte
		if snap {
			if state, err = h.(encoding.BinaryMarshaler).MarshalBinary(); err != nil {
				return err
			}
		}
		s.mu.Lock()
		s.at = off
		if snap {
			s.snaps = append(s.snaps, snapshot{off, state})
		}
		if off == s.end {
			s.sum = h.Sum(nil)
		}
		s.cond.Broadcast()
		s.mu.Unlock()
	}
	return nil
}

// finish returns the hash of [start, end) if the guess was start, else ok is false (the caller
// hashes the span itself). It waits for the hashing to get there.
func (s *specHash) finish(start, end int64) (sum string, ok bool, err error) {
	s.mu.Lock()
	if s.start != start || start < 0 {
		s.stopped = true
		s.mu.Unlock()
		return "", false, nil
	}
	s.end = end
	for s.sum == nil && !s.done && s.at < end {
		s.cond.Wait()
	}
	if s.err != nil {
		defer s.mu.Unlock()
		return "", false, s.err
	}
	if s.sum != nil {
		defer s.mu.Unlock()
		return hex.EncodeToString(s.sum), true, nil
	}
	// The hashing went past end (it learnt of it late) or stopped at the file's end before it:
	// go on from the last state at or before end.
	from, state := start, []byte(nil)
	for _, sn := range s.snaps {
		if sn.off <= end {
			from, state = sn.off, sn.state
		}
	}
	s.stopped = true
	s.mu.Unlock()
	h := sha256.New()
	if state != nil {
		if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(state); err != nil {
			return "", false, err
		}
	}
	f, err := os.Open(s.path)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	if err := hashRange(h, f, from, end); err != nil {
		return "", false, err
	}
	return hex.EncodeToString(h.Sum(nil)), true, nil
}

// stop ends the hashing (the compaction is not going ahead).
func (s *specHash) stop() {
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
}
