package cmd

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// NewCmdMan writes man pages for every command (used by the release build).
func NewCmdMan(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:    "man DIR",
		Short:  "Write man pages for every command into DIR",
		Args:   cobra.ExactArgs(1),
		Hidden: true,
		RunE: func(c *cobra.Command, args []string) error {
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			root := c.Root()
			root.DisableAutoGenTag = true
			hdr := &doc.GenManHeader{Title: "CTXC", Section: "1", Source: "ctxc " + f.Build.Version}
			if err := doc.GenManTree(root, hdr, dir); err != nil {
				return err
			}
			if !f.Global.Quiet {
				fmt.Fprintf(f.IO.ErrOut, "man pages written to %s\n", dir)
			}
			return nil
		},
	}
}
