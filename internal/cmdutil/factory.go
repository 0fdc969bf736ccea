package cmdutil

import (
	"runtime/debug"
	"time"

	"github.com/ctxc/ctxc/internal/config"
	"github.com/ctxc/ctxc/internal/iostreams"
)

// BuildInfo is stamped by the release build.
type BuildInfo struct{ Version, Commit, Date string }

// resolve fills missing fields from the Go build information (go install, go build).
func (b BuildInfo) Resolve() BuildInfo {
	if b.Version != "" {
		return b
	}
	b.Version = "dev"
	if info, ok := debug.ReadBuildInfo(); ok {
		if v := info.Main.Version; v != "" && v != "(devel)" {
			b.Version = v
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.time":
				b.Date = s.Value
			}
		}
	}
	return b
}

// Factory holds what every command needs from the outside world; tests replace its parts.
type Factory struct {
	IO     *iostreams.IOStreams
	Getenv func(string) string
	Now    func() time.Time
	Build  BuildInfo
	// Executable returns the running ctxc's path (nil: os.Executable through symbolic links).
	Executable func() (string, error)
	// WaitNotice is how long a summarizer may take before ctxc says it has not answered yet
	// (0: 30 s; tests shorten it).
	WaitNotice time.Duration

	Global   GlobalOptions
	Resolved *config.Resolved // effective settings of the running command
}

// GlobalOptions are the root's persistent flags.
type GlobalOptions struct {
	ConfigFile string
	JSON       bool
	Quiet      bool
	Verbose    int
	Format     string
	Strict     bool
}

// Bars reports whether progress may be drawn on a terminal: neither --json nor -q.
func (g *GlobalOptions) Bars() bool { return !g.JSON && !g.Quiet }
