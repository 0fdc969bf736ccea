// Package config resolves ctxc's settings with the precedence flag > environment > config file >
// default, and remembers where each effective value came from (`ctxc config`).
//
// It follows the "sting of the viper" pattern: a fresh viper per run reads the file and the
// CTXC_* environment, and every flag the user did not set is assigned from viper, so the rest of
// the program reads plain option structs and never viper itself.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// EnvPrefix prefixes every environment variable: --keep-tail is CTXC_KEEP_TAIL.
const EnvPrefix = "CTXC"

// Source says where an effective value came from.
type Source string

// Sources, strongest first.
const (
	SourceFlag    Source = "flag"
	SourceEnv     Source = "env"
	SourceFile    Source = "file"
	SourceDefault Source = "default"
)

// Setting is one effective value.
type Setting struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source Source `json:"source"`
	Origin string `json:"origin,omitempty"` // the variable or file that supplied it
}

// Error is a bad configuration: a missing explicit config file, unreadable YAML, or a value that
// does not fit its flag. The CLI exits 78 (EX_CONFIG).
type Error struct{ Err error }

func (e *Error) Error() string { return "config: " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Aliases are foreign environment variables honoured for a key when no CTXC_* variable is set,
// in order of preference. Provider-specific variables (OLLAMA_HOST, OPENAI_BASE_URL,
// OPENAI_API_KEY) are resolved by the summarizer setup instead, since which one applies depends
// on the provider.
var Aliases = map[string][]string{}

// NotFromEnv lists keys that environment variables never set: they make no sense as a standing
// setting (help, the config file path itself).
var NotFromEnv = map[string]bool{"help": true, "config": true, "version": true}

// DefaultPath returns the config file used when none is named: $CTXC_CONFIG,
// $XDG_CONFIG_HOME/ctxc/config.yaml, else ~/.config/ctxc/config.yaml (also on macOS, as CLI
// users expect).
func DefaultPath(getenv func(string) string) string {
	if p := getenv("CTXC_CONFIG"); p != "" {
		return p
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "ctxc", "config.yaml")
	}
	home := getenv("HOME")
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = h
		}
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "ctxc", "config.yaml")
}

// Resolved is the outcome of Apply.
type Resolved struct {
	File     string    // config file read ("" when none)
	Settings []Setting // every flag of the command, sorted by key
}

// Lookup returns the setting for key.
func (r *Resolved) Lookup(key string) (Setting, bool) {
	for _, s := range r.Settings {
		if s.Key == key {
			return s, true
		}
	}
	return Setting{}, false
}

// Apply resolves every flag in fs: a flag set on the command line wins; otherwise a CTXC_*
// variable (or an alias), then the config file, then the flag's default. explicit is the
// --config value ("" for the default path, where a missing file is fine).
func Apply(flags *pflag.FlagSet, explicit string, getenv func(string) string) (*Resolved, error) {
	v := viper.New()
	v.SetConfigType("yaml")
	path := explicit
	if path == "" {
		path = DefaultPath(getenv)
	}
	res := &Resolved{}
	if path != "" {
		v.SetConfigFile(path)
		if err := v.ReadInConfig(); err != nil {
			var nf viper.ConfigFileNotFoundError
			missing := errors.As(err, &nf) || errors.Is(err, fs.ErrNotExist)
			if !missing || explicit != "" {
				return nil, &Error{fmt.Errorf("%s: %w%s", path, err, badByteLine(path, err))}
			}
		} else {
			res.File = path
		}
	}
	known := map[string]bool{}
	var applyErr error
	flags.VisitAll(func(f *pflag.Flag) {
		known[f.Name] = true
		s := Setting{Key: f.Name, Source: SourceDefault}
		switch {
		case f.Changed:
			s.Source = SourceFlag
		case !NotFromEnv[f.Name] && envValue(f.Name, getenv) != "":
			val, origin := envValueOrigin(f.Name, getenv)
			if err := setFlag(flags, f, val); err != nil && applyErr == nil {
				applyErr = &Error{fmt.Errorf("%s=%q: %w", origin, val, err)}
			}
			s.Source, s.Origin = SourceEnv, origin
		case res.File != "" && v.InConfig(f.Name):
			val := fileValue(v.Get(f.Name))
			if err := setFlag(flags, f, val); err != nil && applyErr == nil {
				applyErr = &Error{fmt.Errorf("%s: %s: %q: %w", res.File, f.Name, val, err)}
			}
			s.Source, s.Origin = SourceFile, res.File
		}
		s.Value = f.Value.String()
		res.Settings = append(res.Settings, s)
	})
	if applyErr != nil {
		return nil, applyErr
	}
	if res.File != "" {
		var unknown []string
		for _, k := range v.AllKeys() {
			if top := strings.SplitN(k, ".", 2)[0]; !known[top] && !isKnownElsewhere(top) {
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			// Unknown keys are most often typos: say so instead of ignoring them silently.
			return nil, &Error{fmt.Errorf("%s: unknown setting(s): %s", res.File, strings.Join(unknown, ", "))}
		}
	}
	sort.Slice(res.Settings, func(i, j int) bool { return res.Settings[i].Key < res.Settings[j].Key })
	return res, nil
}

// knownElsewhere lists keys valid in the config file that belong to other commands than the one
// running, so that a shared file does not fail on them. The CLI fills it with every command's
// flags (AddKnown), from every command tree it builds: concurrent builds (tests) share it, so it
// is guarded.
var (
	knownMu        sync.RWMutex
	knownElsewhere = map[string]bool{}
)

// AddKnown records a config key that some command reads.
func AddKnown(key string) {
	knownMu.Lock()
	knownElsewhere[key] = true
	knownMu.Unlock()
}

func isKnownElsewhere(key string) bool {
	knownMu.RLock()
	defer knownMu.RUnlock()
	return knownElsewhere[key]
}

// EnvName is the environment variable for a key.
func EnvName(key string) string {
	return EnvPrefix + "_" + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(key))
}

func envValue(key string, getenv func(string) string) string {
	v, _ := envValueOrigin(key, getenv)
	return v
}

func envValueOrigin(key string, getenv func(string) string) (string, string) {
	name := EnvName(key)
	if v := getenv(name); v != "" {
		return v, name
	}
	for _, alias := range Aliases[key] {
		if v := getenv(alias); v != "" {
			return v, alias
		}
	}
	return "", ""
}

func fileValue(v any) string {
	switch t := v.(type) {
	case []any:
		parts := make([]string, len(t))
		for i, p := range t {
			parts[i] = fmt.Sprint(p)
		}
		return strings.Join(parts, ",")
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

func setFlag(fs *pflag.FlagSet, f *pflag.Flag, val string) error {
	if err := fs.Set(f.Name, val); err != nil {
		return err
	}
	f.Changed = false // still "not set on the command line": keep later checks honest
	return nil
}

// badByteLine is, for a file the YAML parser refused without saying where (control characters,
// invalid UTF-8), " (line N)" for the first line that holds such a byte; "" when the error says
// its line already or no such byte is found.
func badByteLine(path string, err error) string {
	if strings.Contains(err.Error(), "line ") {
		return ""
	}
	data, rerr := os.ReadFile(path)
	if rerr != nil {
		return ""
	}
	line := 1
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		switch {
		case r == '\n':
			line++
		case r == utf8.RuneError && size == 1, r < ' ' && r != '\t' && r != '\r', r == 0x7f:
			return fmt.Sprintf(" (line %d)", line)
		}
		data = data[size:]
	}
	return ""
}
