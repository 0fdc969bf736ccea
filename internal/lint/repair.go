package lint

import (
	"errors"
	"fmt"
	"github.com/ctxc/ctxc/internal/address"
	"io"
	"time"

	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/transcript"
)

// RepairOptions control a repair.
type RepairOptions struct {
	Format transcript.Format
	Output string // "": append to the file itself; else write a copy with the repair there
	Now    time.Time
	DryRun bool
	// Force lets Output replace an existing file ctxc did not write (safewrite.CheckOutput).
	Force bool
	// RepairTail moves a cut last line aside (safewrite.SetAsideTail) instead of refusing to
	// append after it.
	RepairTail bool
}

// RepairResult says what Repair did, and what lint still finds afterwards (problems repair
// does not fix: duplicate ids, a broken parent chain, a second summary).
type RepairResult struct {
	transcript.RepairPlan
	Format transcript.Format
	Path   string // the file written (nothing when Data is nil or DryRun)
	Left   []Problem
	// TailAside is the file a cut last line was moved into (RepairTail).
	TailAside string
}

// Repair appends to an agent's file (or to a copy, with Output) the agent's own records that
// give every tool call of the context its result right after it; the bytes already in the file
// stay as they are.
// An archived session (zstd) is never appended to: it is repaired into a copy (Output) or not
// at all.
func Repair(path string, opts RepairOptions) (_ *RepairResult, err error) {
	if a := address.Parse(path); a.Exported() {
		return repairExported(a, opts)
	}
	if opts.Output != "" && !opts.DryRun {
		if err := safewrite.CheckOutput(opts.Output, []string{path}, opts.Force); err != nil {
			return nil, err
		}
	}
	unlock, before, err := lockSource(path, opts)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var aside *safewrite.AsideTail
	defer func() {
		if aside != nil && err != nil {
			if rerr := aside.Restore(); rerr != nil {
				err = fmt.Errorf("%w (and %v)", err, rerr)
			}
		}
	}()
	res, msgs, err := transcript.LoadFile(path, transcript.Options{Format: opts.Format})
	if err != nil {
		return nil, err
	}
	f := res.Stats.Format
	if !f.Native() {
		return nil, &transcript.DataError{Path: path, Msg: fmt.Sprintf("repair writes the records of Claude Code, Codex and pi files (this is %s); ctxc load answers such calls in its output", f)}
	}
	src, err := transcript.OpenSource(path, res)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	plan, err := transcript.PlanRepair(src, f, msgs, now)
	if err != nil {
		return nil, err
	}
	out := &RepairResult{RepairPlan: plan, Format: f}
	target := path
	if plan.Data != nil && !opts.DryRun {
		if opts.Output != "" {
			target = opts.Output
			err = safewrite.WriteAtomic(opts.Output, func(w io.Writer) error {
				if err := copySession(w, path, before.Size); err != nil {
					return err
				}
				_, err := w.Write(plan.Data)
				return err
			})
			if err == nil {
				safewrite.RecordOutput(opts.Output)
			}
		} else if aside, before, err = checkTail(path, before, opts.RepairTail); err == nil {
			_, err = safewrite.Append(path, before, func([][]byte) ([]byte, error) { return plan.Data, nil }, false, nil)
		}
		if err != nil {
			return nil, err
		}
		out.Path = target
		if aside != nil {
			out.TailAside = aside.Aside
		}
	}
	if out.Left, _, err = File(target, opts.Format); err != nil {
		return nil, err
	}
	return out, nil
}

// checkTail refuses to append after a last line cut short, or with repairTail moves that line
// aside (and notes the file's new size).
func checkTail(path string, before safewrite.FileState, repairTail bool) (*safewrite.AsideTail, safewrite.FileState, error) {
	err := safewrite.CheckTail(path)
	var pe *safewrite.PartialLineError
	if !errors.As(err, &pe) || !repairTail {
		return nil, before, err
	}
	aside, err := safewrite.SetAsideTail(path)
	if err != nil {
		return nil, before, err
	}
	before, err = safewrite.Stat(path)
	return aside, before, err
}

// lockSource takes the file's lock and notes its size and time, for an append into it. An
// archived session is only read: it needs no lock, and its size is that of its text.
func lockSource(path string, opts RepairOptions) (unlock func(), before safewrite.FileState, err error) {
	if a := address.Parse(path); a.Kind == address.Archive {
		if opts.Output == "" && !opts.DryRun {
			return nil, before, a.Writable("use -o FILE to write a repaired copy")
		}
		return func() {}, safewrite.FileState{Size: -1}, nil
	}
	if unlock, err = safewrite.Lock(path); err != nil {
		return nil, before, err
	}
	if before, err = safewrite.Stat(path); err != nil {
		unlock()
		return nil, before, err
	}
	return unlock, before, nil
}

// copySession writes the session's text (its first size bytes; all of it when size < 0, as for
// an archived session, read decompressed) ending with a line end, so that records can follow.
func copySession(w io.Writer, path string, size int64) error {
	f, err := transcript.OpenFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var text io.Reader = f
	if size >= 0 {
		text = io.LimitReader(f, size)
	}
	lw := &lastByteWriter{w: w}
	if _, err := io.Copy(lw, text); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if lw.n > 0 && lw.last != '\n' {
		_, err = w.Write([]byte{'\n'})
	}
	return err
}

// lastByteWriter remembers the last byte written through it.
type lastByteWriter struct {
	w    io.Writer
	n    int64
	last byte
}

func (l *lastByteWriter) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	if n > 0 {
		l.n += int64(n)
		l.last = p[n-1]
	}
	return n, err
}

// repairExported repairs a session read as its export (a store's STORE#SESSION-ID, Aider's
// history, an OpenHands conversation), which is never written in place: with Output or DryRun,
// its export is repaired (address.WriteExported).
func repairExported(a address.Address, opts RepairOptions) (*RepairResult, error) {
	output := opts.Output
	if opts.DryRun {
		output = ""
	}
	var res *RepairResult
	err := a.WriteExported(opts.Output == "" && !opts.DryRun, output, opts.Force, func(tmp string) error {
		var err error
		res, err = Repair(tmp, opts)
		return err
	})
	return res, err
}
