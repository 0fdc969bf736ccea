package grep

import "fmt"

// roles are the roles a search filters on: a message's role, "tool" for a message of tool
// results only, "summary" for a compaction's summary.
var roles = map[string]bool{"system": true, "developer": true, "user": true, "assistant": true, "tool": true, "summary": true}

// ParseRoles reads a role filter (grep's and search's --role, the MCP tools' roles): nil for
// none (every role), an error naming an unknown role and the roles there are.
func ParseRoles(names []string) (map[string]bool, error) {
	if len(names) == 0 {
		return nil, nil
	}
	out := map[string]bool{}
	for _, r := range names {
		if !roles[r] {
			return nil, fmt.Errorf("unknown role %q (want user, assistant, tool, system, developer or summary)", r)
		}
		out[r] = true
	}
	return out, nil
}
