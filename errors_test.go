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

func TestGPUsSeenMissing(t *testing.T) {
	before := SeenIn([]Sample{{GPU: GPU{UUID: "GPU-b", Index: 1}}, {GPU: GPU{UUID: "GPU-a", Index: 0}}, {GPU: GPU{UUID: "GPU-c", Index: 2}}})
	now := SeenIn([]Sample{{GPU: GPU{UUID: "GPU-a"}}, {GPU: GPU{UUID: "GPU-d", Index: 3}}})
	if got := before.Missing(now); len(got) != 2 || got[0] != "GPU-b" || got[1] != "GPU-c" {
		t.Errorf("vanished = %v, want [GPU-b GPU-c]", got)
	}
	if got := now.Missing(before); len(got) != 1 || got[0] != "GPU-d" {
		t.Errorf("appeared = %v, want [GPU-d]", got)
	}
}
