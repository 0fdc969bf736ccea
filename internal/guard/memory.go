package guard

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/ctxc/ctxc/internal/memory"
)

// memoryShare is the part of the hook's time the memory flush may take: the note comes after it.
const memoryShare = 2

// flushMemory merges the memory of the session into the memory file, before the note (in Claude
// Code, before the agent writes its compaction). The session file keeps what the compaction
// replaces, so the memory holds everything said up to now. It says what it did, for the log;
// a failure leaves the memory file as it was and does not stop the note.
func flushMemory(ctx context.Context, input Input, o Options) string {
	path := o.Memory
	if !filepath.IsAbs(path) {
		if input.Cwd == "" {
			return "memory: not written: a relative memory file and no cwd in the hook input"
		}
		path = filepath.Join(input.Cwd, path)
	}
	res, err := withTimeout(ctx, o.timeout()/memoryShare, func() (string, error) {
		mo := memory.Options{Read: memory.ReadOptions{MaxLine: maxLine}, Base: filepath.Dir(path)}
		m, err := memory.Read(ctx, []string{input.TranscriptPath}, mo)
		if err != nil {
			return "", err
		}
		u, err := memory.UpdateFile(path, m, []string{input.TranscriptPath}, mo, false)
		if err != nil {
			return "", err
		}
		if !u.Changed {
			return fmt.Sprintf("memory: %s unchanged (%d entries)", path, len(u.Entries)), nil
		}
		return fmt.Sprintf("memory: %s, %d entries (%d new)", path, len(u.Entries), u.Added), nil
	})
	if err != nil {
		return "memory: not written: " + err.Error()
	}
	return res
}
