package grep

import (
	"os"
	"strconv"
)

// DecodeAllEnv names the environment variable that turns grep's fast paths off. Set to 1, each
// file File searches has every line decoded by the transcript readers, as --json and -C have
// them decoded, where grep would decode only the lines its byte-level prefilter picks (and read
// most of those, Claude Code records, pi entries and plain messages, without decoding them
// whole), and where --json would decode only the lines holding "compact" to find the
// compactions that covered a hit. The hits are the same, found slower: a bug report can tell a
// fast path's mistake from the readers' by comparing the two.
const DecodeAllEnv = "CTXC_GREP_DECODE_ALL"

// decodeAll reports whether DecodeAllEnv asks for every line to be decoded (1, or another
// value that strconv.ParseBool reads as true). File reads it before reading each file.
func decodeAll() bool {
	v := os.Getenv(DecodeAllEnv)
	if v == "" {
		return false // unset: not given to ParseBool, whose error would be an allocation per file
	}
	on, _ := strconv.ParseBool(v)
	return on
}
