package cmd

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/iostreams"

	"github.com/spf13/cobra"
)

// ManOptions are the inputs of ctxc man.
type ManOptions struct {
	IO     *iostreams.IOStreams
	Getenv func(string) string
	Now    func() time.Time
	Build  cmdutil.BuildInfo
	Quiet  bool

	Dir  string
	Root *cobra.Command
}

// NewCmdMan writes man pages for every command (used by the release build).
func NewCmdMan(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:         "man DIR",
		Short:       "Write man pages for every command into DIR",
		Annotations: map[string]string{noSettings: "true"},
		Long:        "Write one man page (roff, section 1) per command into DIR. The pages are dated by\nSOURCE_DATE_EPOCH when it is set, for reproducible builds, else by the current month.",
		Args:        cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts := &ManOptions{IO: f.IO, Getenv: f.Getenv, Now: f.Now, Build: f.Build, Quiet: f.Global.Quiet,
				Dir: args[0], Root: c.Root()}
			return runMan(opts)
		},
	}
}

func runMan(o *ManOptions) error {
	date := o.Now()
	if s := o.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		sec, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return &cmdutil.UsageError{Err: fmt.Errorf("SOURCE_DATE_EPOCH=%q: not a number of seconds", s)}
		}
		date = time.Unix(sec, 0).UTC()
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return err
	}
	h := manHeader{Title: "CTXC", Section: "1", Source: "ctxc " + o.Build.Version, Date: date}
	if err := writeManTree(o.Root, h, o.Dir); err != nil {
		return err
	}
	if !o.Quiet {
		fmt.Fprintf(o.IO.ErrOut, "man pages written to %s\n", o.Dir)
	}
	return nil
}
