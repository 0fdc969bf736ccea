package hooks

import (
	"os"
	"testing"

	"github.com/ctxc/ctxc/internal/agentcheck"
)

// TestMain says, once the tests ran, how many agent tests were skipped (agentcheck.Counted).
func TestMain(m *testing.M) { os.Exit(agentcheck.Counted(m).Run()) }
