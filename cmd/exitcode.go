package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/ctxc/ctxc/internal/config"
	"github.com/ctxc/ctxc/internal/transcript"
)

// Exit codes (docs/design.md §9). They are mapped from errors in one place, exitCode.
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitPartial     = 3
	ExitData        = 65 // EX_DATAERR: bad input with --strict, or not a transcript
	ExitUnavailable = 69 // EX_UNAVAILABLE: summarizer endpoint down
	ExitTempFail    = 75 // EX_TEMPFAIL: locked or live file; retry later
	ExitConfig      = 78 // EX_CONFIG
	ExitInterrupted = 130
)

// ExitError carries an explicit exit code. Silent means the message was already printed.
type ExitError struct {
	Code   int
	Err    error
	Silent bool
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return ""
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// UsageError is a bad flag or argument.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// codeMappers let other packages' error types map to exit codes without cmd knowing them all
// here (the summarizer registers its own in compact.go).
var codeMappers []func(error) (int, bool)

func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		return ExitUsage
	}
	var ce *config.Error
	if errors.As(err, &ce) {
		return ExitConfig
	}
	if errors.Is(err, context.Canceled) {
		return ExitInterrupted
	}
	for _, m := range codeMappers {
		if code, ok := m(err); ok {
			return code
		}
	}
	var de *transcript.DataError
	if errors.As(err, &de) {
		return ExitData
	}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return ExitFailure
	}
	return ExitFailure
}

// batchExit is the exit policy of a command run over many files, in one place: an interrupt
// (130), every file failed (1), some failed and the others were done (3).
func batchExit(ctx context.Context, failed, files int) error {
	switch {
	case ctx.Err() != nil:
		return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted")}
	case failed > 0 && failed == files:
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("all %d file(s) failed", failed)}
	case failed > 0:
		return &ExitError{Code: ExitPartial, Err: fmt.Errorf("%d of %d file(s) failed", failed, files)}
	}
	return nil
}
