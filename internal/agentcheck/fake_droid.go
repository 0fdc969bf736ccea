package agentcheck

import "fmt"

// DroidRead is the call of droid's file-reading tool, for FakeChat.
func DroidRead(path string) (name, args string) {
	return "Read", fmt.Sprintf(`{"file_path":%q}`, path)
}
