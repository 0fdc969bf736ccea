package cmdutil

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/ctxc/ctxc/internal/compact"
	"github.com/ctxc/ctxc/internal/quote"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/ctxc/ctxc/internal/usage"
	"github.com/spf13/cobra"
)

// AddInstructionsFlags adds the flags that give a compaction its instructions.
func AddInstructionsFlags(c *cobra.Command, instructions *string, none *bool) {
	fl := c.Flags()
	fl.StringVar(instructions, "instructions", "", `instructions for the compaction, or @FILE to read them from FILE (default: the "`+compact.InstructionsHeading+`" section of the project's CLAUDE.md or AGENTS.md)`)
	fl.BoolVar(none, "no-instructions", false, "follow no instructions, not even the project's")
	c.MarkFlagsMutuallyExclusive("instructions", "no-instructions")
}

// InstructionSource tells the instructions each file's compaction follows: those of the flag, or
// the section of the file's project (the folder the session records, else the current one).
type InstructionSource struct {
	// Say is told each source of instructions once, to be named on stderr (nil: quiet).
	Say func(string)

	fixed   string // the flag's; "" with byProject
	from    string // where the flag's came from, as said on stderr
	project bool   // the project's section by default
	format  transcript.Format

	mu    sync.Mutex
	byDir map[string]string // project folder → its instructions
	told  map[string]bool   // sources already named on stderr
}

// NewInstructionSource reads the flags: @FILE is read now, a missing FILE is a usage error.
func NewInstructionSource(instructions string, none bool, format transcript.Format) (*InstructionSource, error) {
	s := &InstructionSource{format: format, byDir: map[string]string{}, told: map[string]bool{}}
	switch {
	case none:
		return s, nil
	case strings.HasPrefix(instructions, "@"):
		name := instructions[1:]
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, &UsageError{Err: fmt.Errorf("--instructions @%s: %w", name, errors.Unwrap(err))}
		}
		s.fixed, s.from = string(data), quote.Name(name)
	case instructions != "":
		s.fixed, s.from = instructions, "--instructions"
	default:
		s.project = true
	}
	if strings.TrimSpace(s.fixed) == "" && !s.project && instructions != "" {
		return nil, &UsageError{Err: fmt.Errorf("--instructions %s: no instructions in it", s.from)}
	}
	return s, nil
}

// For is the instructions of the compaction of path ("" for none).
func (s *InstructionSource) For(path string) (string, error) {
	if !s.project {
		s.tell(s.from)
		return s.fixed, nil
	}
	return s.ofProject(s.projectOf(path))
}

// Here is the instructions of a compaction of the project ctxc runs in (the current folder):
// what an agent's plugin, run there, asks ctxc to summarize.
func (s *InstructionSource) Here() (string, error) {
	if !s.project {
		s.tell(s.from)
		return s.fixed, nil
	}
	wd, _ := os.Getwd()
	return s.ofProject(wd)
}

// ofProject is the section of project folder dir, read once.
func (s *InstructionSource) ofProject(dir string) (string, error) {
	s.mu.Lock()
	text, ok := s.byDir[dir]
	s.mu.Unlock()
	if ok {
		return text, nil
	}
	text, file, err := compact.ProjectInstructions(dir)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	s.byDir[dir] = text
	s.mu.Unlock()
	if file != "" {
		s.tell(fmt.Sprintf("the %q section of %s", compact.InstructionsHeading, quote.Name(file)))
	}
	return text, nil
}

// projectOf is the project folder of session path: the one it records, else the current one.
func (s *InstructionSource) projectOf(path string) string {
	if p, err := usage.FileProject(path, s.format); err == nil && p != "" {
		return p
	}
	wd, _ := os.Getwd()
	return wd
}

// tell names a source of instructions on stderr, once.
func (s *InstructionSource) tell(from string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Say == nil || from == "" || s.told[from] {
		return
	}
	s.told[from] = true
	s.Say("instructions: " + from)
}
