package gpucost

import (
	"errors"
	"fmt"
)

// Error codes classify failures once, for people: the CLI maps them to exit codes and the HTTP
// API to status codes, each through one table.
const (
	EInvalid     = "invalid"     // bad input: a flag, a file, a value
	ENotFound    = "not_found"   // nothing matches
	EConflict    = "conflict"    // the request contradicts what is stored
	EUnavailable = "unavailable" // a source or server cannot be reached now; retrying may help
	EInternal    = "internal"    // a bug
)

// Error is an error with a code and a message meant for the person who ran the command.
type Error struct {
	Code    string
	Message string // the whole message, the cause's text included
	Err     error  // the cause, if any, for errors.Is and errors.As
}

func (e *Error) Error() string { return e.Message }

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an Error with the given code. A %w verb in format sets the cause.
func Errorf(code, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Code: code, Message: err.Error(), Err: errors.Unwrap(err)}
}

// ErrorCode returns the code of the first Error in err's chain, EInternal if there is none and
// the empty string for a nil error.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}
