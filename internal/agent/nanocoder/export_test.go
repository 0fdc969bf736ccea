package nanocoder

// What the tests of package nanocoder_test (which load through transcript) read of the reader.
const (
	MaxMessages    = nanocoderMaxMessages
	MaxResultChars = nanocoderMaxResultChars
)

var Cut = nanocoderCut
