package cmdutil

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ctxc/ctxc/internal/config"
	"github.com/spf13/pflag"
)

// Every numeric and duration flag of every command has an accepted range, declared beside the
// flag with IntRange, FloatRange or DurationRange and checked in one place (CheckRanges), after
// the configuration file and the environment have had their say: a negative --keep-tail, a
// --timeout of -1s or a --window of 1 token is refused with the flag named and its range said,
// never read as a default. A value given on the command line is a usage error (exit 2); one from
// the environment or a config file is a configuration error (exit 78) that names its origin.
// The test walks the command tree: a numeric flag without a range fails it.

// RangeAnnotation is the pflag annotation that holds a flag's range: its lowest and highest
// accepted values and, when 0 is accepted outside them, what 0 means.
const RangeAnnotation = "ctxc:range"

// Bounds of counts that are absurd long before they are harmful.
const (
	MaxTokens   = 1_000_000_000 // a token count no model window comes near
	MaxCount    = 1_000_000     // messages, turns, entries, results
	MaxJobs     = 4096          // files at once
	MaxParallel = 256           // summarizer requests at once
	MinWindow   = 1024          // the smallest context window of a model worth compacting for
)

// IntRange declares the range of an int flag: min..max, and 0 too when zero says what 0 means.
func IntRange(fs *pflag.FlagSet, name string, min, max int64, zero string) {
	setRange(fs, name, strconv.FormatInt(min, 10), strconv.FormatInt(max, 10), zero)
}

// FloatRange declares the range of a float flag.
func FloatRange(fs *pflag.FlagSet, name string, min, max float64) {
	setRange(fs, name, strconv.FormatFloat(min, 'g', -1, 64), strconv.FormatFloat(max, 'g', -1, 64), "")
}

// DurationRange declares the range of a duration flag.
func DurationRange(fs *pflag.FlagSet, name string, min, max time.Duration, zero string) {
	setRange(fs, name, min.String(), max.String(), zero)
}

func setRange(fs *pflag.FlagSet, name, min, max, zero string) {
	if err := fs.SetAnnotation(name, RangeAnnotation, []string{min, max, zero}); err != nil {
		panic(err) // a range declared for a flag that does not exist: a programming error
	}
}

// IsNumericFlag reports whether a flag's value is a number or a duration (a repeated count such
// as -v is not: it cannot be given a value).
func IsNumericFlag(fl *pflag.Flag) bool {
	switch fl.Value.Type() {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
		"float32", "float64", "duration":
		return true
	}
	return false
}

// rangeError is a value outside its flag's range.
type rangeError struct {
	flag, value, want string
}

func (e *rangeError) Error() string {
	return fmt.Sprintf("--%s %s: out of range: want %s", e.flag, e.value, e.want)
}

// CheckRanges checks every flag of fs that declares a range against its effective value; res
// says where each value came from.
func CheckRanges(fs *pflag.FlagSet, res *config.Resolved) error {
	var first error
	if fl := fs.Lookup("output"); fl != nil && fl.Changed && fl.Value.String() == "" {
		// -o "" (an unset shell variable) would otherwise mean no -o at all: compact in place.
		return &UsageError{errors.New("--output: empty: give a file name (- for standard output)")}
	}
	fs.VisitAll(func(fl *pflag.Flag) {
		r, ok := fl.Annotations[RangeAnnotation]
		if !ok || first != nil || len(r) != 3 {
			return
		}
		if re := CheckRange(fl, r[0], r[1], r[2]); re != nil {
			first = attributed(re, res)
		}
	})
	return first
}

// CheckRange checks one flag's value against [min, max] (and 0 when zero is said).
func CheckRange(fl *pflag.Flag, min, max, zero string) *rangeError {
	val := fl.Value.String()
	var in, isZero bool
	switch fl.Value.Type() {
	case "duration":
		v, err1 := time.ParseDuration(val)
		lo, err2 := time.ParseDuration(min)
		hi, err3 := time.ParseDuration(max)
		if err := errors.Join(err1, err2, err3); err != nil {
			return &rangeError{fl.Name, val, "a duration such as 90s or 5m"}
		}
		in, isZero = v >= lo && v <= hi, v == 0
	default:
		v, err1 := strconv.ParseFloat(val, 64)
		lo, err2 := strconv.ParseFloat(min, 64)
		hi, err3 := strconv.ParseFloat(max, 64)
		if err := errors.Join(err1, err2, err3); err != nil {
			return &rangeError{fl.Name, val, "a number"}
		}
		in, isZero = v >= lo && v <= hi, v == 0
		min, max = readableNumber(lo), readableNumber(hi)
	}
	if in || (isZero && zero != "") {
		return nil
	}
	want := fmt.Sprintf("%s to %s", min, max)
	if zero != "" {
		want = fmt.Sprintf("0 (%s) or %s", zero, want)
	}
	return &rangeError{fl.Name, val, want}
}

// readableNumber prints a bound as users read it: 1,000,000 rather than 1e+06.
func readableNumber(f float64) string {
	if f == float64(int64(f)) {
		return Thousands(int64(f))
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// attributed turns a range error into the error of where the value came from: a usage error
// for a flag, a configuration error naming the variable or the file otherwise.
func attributed(re *rangeError, res *config.Resolved) error {
	if res != nil {
		if s, ok := res.Lookup(re.flag); ok {
			switch s.Source {
			case config.SourceEnv:
				return &config.Error{Err: fmt.Errorf("%s=%s: %s: out of range: want %s", s.Origin, re.value, re.flag, re.want)}
			case config.SourceFile:
				return &config.Error{Err: fmt.Errorf("%s: %s: %s: out of range: want %s", s.Origin, re.flag, re.value, re.want)}
			}
		}
	}
	return &UsageError{re}
}

// Thousands formats a count with thousands separators (12,345).
func Thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
