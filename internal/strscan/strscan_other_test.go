//go:build !amd64

package strscan

func addArchKernels(map[string]kernel) {
}
