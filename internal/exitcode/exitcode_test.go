package exitcode

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gpucost/gpucost"
)

type chosen int

func (c chosen) Error() string { return fmt.Sprintf("exit status %d", int(c)) }
func (c chosen) ExitCode() int { return int(c) }

type usage struct{ error }

func (usage) UsageError()     {}
func (u usage) Unwrap() error { return u.error }

func TestFor(t *testing.T) {
	for _, tt := range []struct {
		name  string
		err   error
		want  int
		quiet bool
	}{
		{"nil", nil, OK, true},
		{"chosen", chosen(137), 137, true},
		{"chosen, wrapped", fmt.Errorf("run: %w", chosen(Policy)), Policy, true},
		{"invalid", gpucost.Errorf(gpucost.EInvalid, "x"), Invalid, false},
		{"not found", gpucost.Errorf(gpucost.ENotFound, "x"), NotFound, false},
		{"unavailable", fmt.Errorf("open: %w", gpucost.Errorf(gpucost.EUnavailable, "x")), Unavailable, false},
		{"conflict", gpucost.Errorf(gpucost.EConflict, "x"), Conflict, false},
		{"internal", gpucost.Errorf(gpucost.EInternal, "x"), Failure, false},
		{"plain", errors.New("x"), Failure, false},
		{"usage", usage{errors.New("--limit -1")}, Invalid, false},
		{"usage carrying a code", usage{gpucost.Errorf(gpucost.ENotFound, "x")}, NotFound, false},
		{"unknown command", errors.New(`unknown command "foo" for "gpucost"`), Invalid, false},
	} {
		if got := For(tt.err); got != tt.want {
			t.Errorf("%s: For(%v) = %d, want %d", tt.name, tt.err, got, tt.want)
		}
		if got := Quiet(tt.err); got != tt.quiet {
			t.Errorf("%s: Quiet(%v) = %v, want %v", tt.name, tt.err, got, tt.quiet)
		}
	}
}
