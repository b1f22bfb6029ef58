// Package exitcode decides the exit status of gpucost from the error a command returned: the
// codes gpucost --help lists, which scripts rely on, in one table (docs/architecture.md
// "Packages and what they import").
package exitcode

import (
	"errors"
	"strings"

	"github.com/gpucost/gpucost"
)

// Exit codes that scripts can rely on.
const (
	OK          = 0
	Failure     = 1 // an internal error or a failure without a more specific code
	Invalid     = 2 // bad flags, arguments or input files
	NotFound    = 3 // nothing matched
	Unavailable = 4 // a source or server could not be reached
	Conflict    = 5 // the request contradicts what is stored
	Budget      = 6 // gpucost estimate: the job would break a budget
	Policy      = 7 // gpucost enforce: a policy triggered; gpucost estimate --policies: one would stop the job
)

// byCode maps error codes to exit codes, once; gpucost.EInternal and unclassified errors are
// Failure.
var byCode = map[string]int{
	gpucost.EInvalid:     Invalid,
	gpucost.ENotFound:    NotFound,
	gpucost.EUnavailable: Unavailable,
	gpucost.EConflict:    Conflict,
}

// Chosen is implemented by an error that carries an exit code chosen by a command itself, such
// as the profiled command's. The command has said what it had to say, so its message is not
// printed (Quiet).
type Chosen interface {
	error
	ExitCode() int
}

// Usage is implemented by the errors that mark bad flags or arguments; they exit Invalid unless
// they carry a gpucost error code of their own.
type Usage interface {
	error
	UsageError()
}

// For returns the exit code of err: OK for nil, the code a Chosen error carries, the exit code of
// err's gpucost error code, Invalid for a Usage error or an unknown command, else Failure.
func For(err error) int {
	var chosen Chosen
	switch {
	case err == nil:
		return OK
	case errors.As(err, &chosen):
		return chosen.ExitCode()
	}
	if code, ok := byCode[gpucost.ErrorCode(err)]; ok {
		return code
	}
	var u Usage
	if errors.As(err, &u) || strings.HasPrefix(err.Error(), "unknown command") {
		return Invalid
	}
	return Failure
}

// Quiet reports whether err's message goes unprinted: nil, or a Chosen error, whose command
// printed what it had to say.
func Quiet(err error) bool {
	var chosen Chosen
	return err == nil || errors.As(err, &chosen)
}
