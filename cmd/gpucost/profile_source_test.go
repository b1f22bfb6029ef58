package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestProfileNvidiaSMISaysItCannotAttribute: nvidia-smi sees whole GPUs, and profile says so
// rather than calling the GPU's utilisation the command's.
func TestProfileNvidiaSMISaysItCannotAttribute(t *testing.T) {
	recordings, _ := filepath.Abs(filepath.Join("..", "..", "telemetry", "nvidiasmi", "testdata"))
	t.Setenv("FAKE_NVIDIA_SMI", filepath.Join(recordings, "a100-8gpu"))
	code, out, errOut := runCLI(t, t.TempDir(), "profile", "--source", "nvidia-smi="+filepath.Join(recordings, "fake-nvidia-smi"),
		"--interval", "50ms", "--", "sh", "-c", "sleep 0.2")
	if code != 0 {
		t.Fatalf("profile: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"attribution", "the whole GPU",
		"Attribution: the source cannot attribute utilisation to processes: utilisation and VRAM are the whole GPU's; another process may be using it."} {
		if !strings.Contains(out+errOut, want) {
			t.Errorf("profile output lacks %q:\n%s\n%s", want, out, errOut)
		}
	}
}
