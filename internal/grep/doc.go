// Package grep owns search over the whole history of sessions, what compaction left out of the
// context included: the pattern (Compile, whose literal the index looks up), the search of one
// file (File) with its fast readers (one per agent format, reading only the lines that can
// match), and of given ranges of a file (FileRanges: the blocks internal/index says can hold the
// literal, for `grep --index`, with exactly the hits of a scan). Each hit says which compaction,
// if any, covered its line. It imports neither cobra nor viper; cmd/ parses flags and prints.
package grep
