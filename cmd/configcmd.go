package cmd

import (
	"encoding/json"
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/compact"
	"github.com/ctxc/ctxc/internal/config"
	"github.com/ctxc/ctxc/internal/llm"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// showComputedDefaults shows the value a setting left at 0 stands for (the threshold, 75% of the
// window or 100,000 tokens; the timeout, in proportion to each request), and how it is computed.
func showComputedDefaults(res *config.Resolved) {
	window := 0
	if s, ok := res.Lookup("window"); ok {
		window, _ = strconv.Atoi(s.Value)
	}
	for i := range res.Settings {
		s := &res.Settings[i]
		switch {
		case s.Key == "threshold" && s.Value == "0":
			o := compact.Options{Window: window}
			s.Value = strconv.Itoa(o.EffectiveThreshold())
			if window > 0 {
				s.Origin = "75% of window"
			}
		case s.Key == "timeout" && s.Value == "0s":
			s.Value = "auto"
			s.Origin = llm.RequestTimeout(0).String() + " + 1m per 16,000 characters sent"
		}
	}
}

// NewCmdConfig builds `ctxc config`: every setting's effective value and where it came from.
func NewCmdConfig(f *cmdutil.Factory) *cobra.Command {
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
			if err := cmdutil.CheckRanges(flags, res); err != nil {
				return err
			}
			showComputedDefaults(res)
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
				if s.Origin != "" && s.Source != config.SourceFile {
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
