package cmdutil

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctxc/ctxc/internal/compact"
	"github.com/ctxc/ctxc/internal/config"
	"github.com/ctxc/ctxc/internal/handoff"
	"github.com/ctxc/ctxc/internal/hooks"
	"github.com/ctxc/ctxc/internal/llm"
	"github.com/ctxc/ctxc/internal/objstore"
	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/transcript"
)

// Exit codes (docs/design.md §9). They are mapped from errors in one place, ExitCode.
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

func ExitCode(err error) int {
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
	if code, ok := workCode(err); ok {
		return code
	}
	return ExitFailure
}

// workCode maps the typed errors of the packages that do the work.
func workCode(err error) (int, bool) {
	var ee *llm.EndpointError
	if errors.As(err, &ee) {
		if ee.Kind == llm.Unavailable {
			return ExitUnavailable, true
		}
		return ExitFailure, true
	}
	var sc *llm.ChoiceError
	if errors.As(err, &sc) {
		return ExitUsage, true
	}
	var sf *llm.ConfigError
	if errors.As(err, &sf) {
		return ExitConfig, true
	}
	var be *safewrite.BusyError
	if errors.As(err, &be) {
		return ExitTempFail, true
	}
	var oe *safewrite.OutputError
	if errors.As(err, &oe) {
		return ExitUsage, true // an output that is an input, a folder, or a file ctxc did not write
	}
	var pl *safewrite.PartialLineError
	if errors.As(err, &pl) {
		return ExitData, true
	}
	var cu *compact.UsageError
	if errors.As(err, &cu) {
		return ExitUsage, true
	}
	var hu *handoff.UsageError
	if errors.As(err, &hu) {
		return ExitUsage, true
	}
	var fe *hooks.FileError
	if errors.As(err, &fe) {
		return ExitConfig, true
	}
	var ua *hooks.UnknownAgentError
	if errors.As(err, &ua) {
		return ExitUsage, true
	}
	var ro *safewrite.ReadOnlyError
	if errors.As(err, &ro) {
		return ExitUsage, true // an archived session, or one of an OpenClaw store, given to a command that writes into it
	}
	var de *transcript.DataError
	if errors.As(err, &de) {
		return ExitData, true
	}
	var se *objstore.StoreError
	if errors.As(err, &se) {
		return storeCode(se.Kind), true
	}
	return 0, false
}

// storeCode maps a store's refusal as the summarizer endpoint's are: a store that does not answer
// is unavailable (69), refused credentials are configuration (78), a bucket that does not exist is
// a bad destination (2).
func storeCode(kind string) int {
	switch kind {
	case objstore.Unreachable:
		return ExitUnavailable
	case objstore.Denied:
		return ExitConfig
	case objstore.NoBucket:
		return ExitUsage
	}
	return ExitFailure
}

// BatchExit is the exit policy of a command run over many files, in one place: an interrupt
// (130), every file failed (1), some failed and the others were done (3).
func BatchExit(ctx context.Context, failed, files int) error {
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

// SearchExit is BatchExit for the commands whose output is the answer (grep, lint): when every
// file failed, the exit code is the last file's own, its message already printed, so that one
// unreadable file exits as that file's error does (65 for not a transcript).
func SearchExit(failed, files int, lastErr error) error {
	if failed > 0 && failed == files && lastErr != nil {
		return &ExitError{Code: ExitCode(lastErr), Err: lastErr, Silent: true}
	}
	return BatchExit(context.Background(), failed, files)
}
