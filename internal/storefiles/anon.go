package storefiles

import "os"

// anonymousTempFile is a temporary file whose name is removed as soon as it is open.
func anonymousTempFile(kind string) (*os.File, error) {
	f, err := os.CreateTemp("", "ctxc-"+kind+"-session-*.jsonl")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	return f, nil
}
