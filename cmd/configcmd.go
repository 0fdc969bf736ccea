package cmd

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/ctxc/ctxc/internal/config"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// NewCmdConfig builds `ctxc config`: every setting's effective value and where it came from.
func NewCmdConfig(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Show each effective setting and where it came from",
		Long: `Show the effective value of every setting of ctxc compact and the global flags, and its source:
flag, env (CTXC_<NAME>, e.g. CTXC_KEEP_TAIL), file ($XDG_CONFIG_HOME/ctxc/config.yaml, or --config,
or $CTXC_CONFIG) or default. Precedence: flag > env > file > default. Config file keys are the
flag names (keep-tail: 10). Provider variables are shown too: OLLAMA_HOST, OPENAI_BASE_URL, and
whether the API key variable is set (its value is never printed).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			probe := *f
			compactCmd := NewCmdCompact(&probe, nil)
			flags := pflag.NewFlagSet("config", pflag.ContinueOnError)
			flags.AddFlagSet(compactCmd.Flags())
			c.Root().PersistentFlags().VisitAll(func(fl *pflag.Flag) {
				if flags.Lookup(fl.Name) == nil {
					flags.AddFlag(fl)
				}
			})
			res, err := config.Apply(flags, f.Global.ConfigFile, f.Getenv)
			if err != nil {
				return err
			}
			keyEnv := "OPENAI_API_KEY"
			if s, ok := res.Lookup("api-key-env"); ok {
				keyEnv = s.Value
			}
			keyState := "unset"
			if f.Getenv(keyEnv) != "" {
				keyState = "set (hidden)"
			}
			extra := []config.Setting{
				{Key: "env:OLLAMA_HOST", Value: f.Getenv("OLLAMA_HOST"), Source: config.SourceEnv},
				{Key: "env:OPENAI_BASE_URL", Value: f.Getenv("OPENAI_BASE_URL"), Source: config.SourceEnv},
				{Key: "env:" + keyEnv, Value: keyState, Source: config.SourceEnv},
			}
			if f.Global.JSON {
				enc := json.NewEncoder(f.IO.Out)
				enc.Encode(map[string]any{"type": "config_file", "path": res.File})
				for _, s := range append(res.Settings, extra...) {
					enc.Encode(struct {
						Type string `json:"type"`
						config.Setting
					}{"setting", s})
				}
				return nil
			}
			file := res.File
			if file == "" {
				file = "(none; looked for " + config.DefaultPath(f.Getenv) + ")"
			}
			fmt.Fprintf(f.IO.Out, "config file: %s\n\n", file)
			tw := tabwriter.NewWriter(f.IO.Out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "KEY\tVALUE\tSOURCE\tENV")
			for _, s := range res.Settings {
				src := string(s.Source)
				if s.Origin != "" && s.Source == config.SourceEnv {
					src += " (" + s.Origin + ")"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Key, s.Value, src, config.EnvName(s.Key))
			}
			for _, s := range extra {
				fmt.Fprintf(tw, "%s\t%s\t%s\t\n", s.Key, s.Value, "env")
			}
			return tw.Flush()
		},
	}
}
