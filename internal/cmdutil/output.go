package cmdutil

import "github.com/ctxc/ctxc/internal/usage"

// FileError is the --json object for a file that failed.
type FileError struct {
	Type    string `json:"type"`
	Path    string `json:"path"`
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Prices is the price table of stats and report: the shipped one, or --prices over it.
func Prices(file string) (*usage.Prices, error) {
	if file == "" {
		return usage.Shipped(), nil
	}
	p, err := usage.LoadPrices(file)
	if err != nil {
		return nil, &ExitError{Code: ExitConfig, Err: err}
	}
	return p, nil
}
