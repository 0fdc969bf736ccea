// Package cmdutil is what every command of ctxc's command line shares: the Factory (streams,
// environment, clock, build, global flags, effective settings), the typed errors and their
// exit codes (mapped in one place, ExitCode), the ranges of numeric flags, the expansion of path
// arguments into sessions, standard input that an interrupt ends, and ordered parallel work.
package cmdutil
