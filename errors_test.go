package gpucost

import (
	"errors"
	"io/fs"
	"testing"
)

func TestErrorfKeepsCauseOnce(t *testing.T) {
	err := Errorf(EUnavailable, "source nvml: %w", fs.ErrNotExist)
	if got, want := err.Error(), "source nvml: file does not exist"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, fs.ErrNotExist) || ErrorCode(err) != EUnavailable {
		t.Errorf("errors.Is = %v, code = %q; want the cause and %q", errors.Is(err, fs.ErrNotExist), ErrorCode(err), EUnavailable)
	}
	if ErrorCode(errors.New("plain")) != EInternal || ErrorCode(nil) != "" {
		t.Error("ErrorCode of a plain error must be internal, of nil empty")
	}
}
