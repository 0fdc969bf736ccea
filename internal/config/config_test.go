package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func newFlags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.Int("threshold", 100000, "")
	fs.String("model", "", "")
	fs.Int("keep-tail", 6, "")
	fs.String("provider", "auto", "")
	return fs
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestPrecedence(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	os.WriteFile(cfg, []byte("threshold: 5000\nmodel: from-file\nkeep-tail: 3\n"), 0o644)
	fs := newFlags()
	if err := fs.Parse([]string{"--threshold", "42"}); err != nil {
		t.Fatal(err)
	}
	res, err := Apply(fs, cfg, env(map[string]string{"CTXC_MODEL": "from-env", "CTXC_THRESHOLD": "7"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key, value string
		src        Source
	}{
		{"threshold", "42", SourceFlag},
		{"model", "from-env", SourceEnv},
		{"keep-tail", "3", SourceFile},
		{"provider", "auto", SourceDefault},
	} {
		s, ok := res.Lookup(tc.key)
		if !ok || s.Value != tc.value || s.Source != tc.src {
			t.Errorf("%s = %+v, want %s from %s", tc.key, s, tc.value, tc.src)
		}
	}
}

func TestMissingFiles(t *testing.T) {
	// A missing default file is fine; a missing explicit one is a config error.
	if _, err := Apply(newFlags(), "", env(map[string]string{"XDG_CONFIG_HOME": t.TempDir()})); err != nil {
		t.Fatalf("default missing: %v", err)
	}
	_, err := Apply(newFlags(), filepath.Join(t.TempDir(), "nope.yaml"), env(nil))
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("explicit missing: %v", err)
	}
}

func TestBadValuesAndUnknownKeys(t *testing.T) {
	var ce *Error
	if _, err := Apply(newFlags(), "", env(map[string]string{"CTXC_THRESHOLD": "lots", "HOME": t.TempDir()})); !errors.As(err, &ce) {
		t.Errorf("bad env value: %v", err)
	}
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(cfg, []byte("treshold: 5\n"), 0o644)
	if _, err := Apply(newFlags(), cfg, env(nil)); !errors.As(err, &ce) {
		t.Errorf("unknown key: %v", err)
	}
	os.WriteFile(cfg, []byte("threshold: [\n"), 0o644)
	if _, err := Apply(newFlags(), cfg, env(nil)); !errors.As(err, &ce) {
		t.Errorf("bad yaml: %v", err)
	}
}

// TestGarbageConfigNamesItsLine: a config file of garbage bytes is an error that names the file
// and the line of the first bad byte, also when the YAML parser does not say where.
func TestGarbageConfigNamesItsLine(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	for _, tc := range []struct {
		data, want string
	}{
		{"model: a\nkeep-tail: 3\nthreshold: \x00\xff\n", "(line 3)"},
		{"model: \xff\xfe\n", "(line 1)"},
		{"threshold: [1, 2\n", "line "},
	} {
		os.WriteFile(cfg, []byte(tc.data), 0o644)
		_, err := Apply(newFlags(), cfg, env(nil))
		var ce *Error
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), cfg) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want the file and %q", tc.data, err, tc.want)
		}
	}
}

func TestDefaultPath(t *testing.T) {
	if got := DefaultPath(env(map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"})); got != "/x/ctxc/config.yaml" {
		t.Error(got)
	}
	if got := DefaultPath(env(map[string]string{"XDG_CONFIG_HOME": "rel", "HOME": "/h"})); got != "/h/.config/ctxc/config.yaml" {
		t.Error(got)
	}
	if got := DefaultPath(env(map[string]string{"CTXC_CONFIG": "/c.yaml"})); got != "/c.yaml" {
		t.Error(got)
	}
	if EnvName("keep-tail-tokens") != "CTXC_KEEP_TAIL_TOKENS" {
		t.Error(EnvName("keep-tail-tokens"))
	}
}
