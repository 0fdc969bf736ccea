package strscan

// addArchKernels: amd64 has one implementation, the default.
func addArchKernels(map[string]kernel) {}
