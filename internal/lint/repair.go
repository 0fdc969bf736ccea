package lint

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ctxc/ctxc/internal/openclawstore"
	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/transcript"
)

// RepairOptions control a repair.
type RepairOptions struct {
	Format transcript.Format
	Output string // "": append to the file itself; else write a copy with the repair there
	Now    time.Time
	DryRun bool
}

// RepairResult says what Repair did, and what lint still finds afterwards (problems repair
// does not fix: duplicate ids, a broken parent chain, a second summary).
type RepairResult struct {
	transcript.RepairPlan
	Format transcript.Format
	Path   string // the file written (nothing when Data is nil or DryRun)
	Left   []Problem
}

// Repair appends to an agent's file (or to a copy, with Output) the agent's own records that
// give every tool call of the context its result right after it; the bytes already in the file
// stay as they are.
func Repair(path string, opts RepairOptions) (*RepairResult, error) {
	if openclawstore.IsSessionName(path) {
		return repairStoreSession(path, opts)
	}
	unlock, err := safewrite.Lock(path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	before, err := safewrite.Stat(path)
	if err != nil {
		return nil, err
	}
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
				in, err := os.Open(path)
				if err != nil {
					return err
				}
				defer in.Close()
				if _, err := io.Copy(w, io.NewSectionReader(in, 0, before.Size)); err != nil {
					return err
				}
				if before.Size > 0 {
					last := make([]byte, 1)
					if _, err := in.ReadAt(last, before.Size-1); err == nil && last[0] != '\n' {
						w.Write([]byte{'\n'})
					}
				}
				_, err = w.Write(plan.Data)
				return err
			})
		} else {
			_, err = safewrite.Append(path, before, func([][]byte) ([]byte, error) { return plan.Data, nil }, false, nil)
		}
		if err != nil {
			return nil, err
		}
		out.Path = target
	}
	if out.Left, _, err = File(target, opts.Format); err != nil {
		return nil, err
	}
	return out, nil
}

// repairStoreSession repairs a session of an OpenClaw store (STORE#SESSION-ID), which is never
// written in place: with Output or DryRun, its pi-format export is repaired.
func repairStoreSession(name string, opts RepairOptions) (*RepairResult, error) {
	if opts.Output == "" && !opts.DryRun {
		return nil, &openclawstore.ReadOnlyError{Name: name}
	}
	tmp, cleanup, err := openclawstore.ExportTemp(name)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	return Repair(tmp, opts)
}
