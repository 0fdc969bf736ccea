// Command ctxc compacts and inspects LLM-agent session transcripts.
package main

import (
	"os"

	"github.com/ctxc/ctxc/cmd"
	"github.com/ctxc/ctxc/internal/cmdutil"
	_ "github.com/ctxc/ctxc/internal/pretouch" // maps the pages ctxc is about to touch, as it starts
)

// Set by the release build (-X main.version=...); `go install` builds fall back to the module's
// build information.
var (
	version = ""
	commit  = ""
	date    = ""
)

func main() {
	os.Exit(cmd.Main(cmdutil.BuildInfo{Version: version, Commit: commit, Date: date}))
}
