package continuecli

// What the tests of package continuecli_test (which load through transcript) read of the reader.
const Cancelled = continueCancelled
