package cmd

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/mcpserver"
	"github.com/spf13/cobra"
)

// MCPOptions are the inputs of `ctxc mcp`.
type MCPOptions struct {
	IO       *iostreams.IOStreams
	Global   *cmdutil.GlobalOptions
	Version  string
	MaxBytes int
}

// NewCmdMCP builds `ctxc mcp`.
func NewCmdMCP(f *cmdutil.Factory, runF func(*MCPOptions) error) *cobra.Command {
	opts := &MCPOptions{IO: f.IO, Global: &f.Global, Version: f.Build.Version}
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve grep, expand, search and stats to agents over MCP (stdio)",
		Long: `Run a Model Context Protocol server on standard input and output offering ctxc's
grep, expand, search and stats as tools, so that an agent can look up what its own
compaction left out:

  claude mcp add ctxc -- ctxc mcp
  # Codex, ~/.codex/config.toml:
  [mcp_servers.ctxc]
  command = "ctxc"
  args = ["mcp"]

Each tool result is bounded (--max-bytes of JSON; grep also by max_hits) and says when it was
cut (truncated, note). Bad arguments (an invalid pattern, a missing file, a file without a
compaction to expand) are tool errors, not protocol errors.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runMCP(opts)
		},
	}
	c.Flags().IntVar(&opts.MaxBytes, "max-bytes", 64<<10, "largest tool result, in bytes of JSON")
	cmdutil.IntRange(c.Flags(), "max-bytes", 1<<10, 1<<30, "")
	return c
}

func runMCP(opts *MCPOptions) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := mcpserver.NewServer(mcpserver.Options{MaxBytes: opts.MaxBytes, Version: opts.Version})
	err := s.Run(ctx, opts.IO.In, opts.IO.Out)
	if ctx.Err() != nil {
		return nil
	}
	return err
}
