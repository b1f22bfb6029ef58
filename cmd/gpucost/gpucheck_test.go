package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGPUCheckWithoutGPU runs scripts/gpu-check.sh where nvidia-smi fails, as on a machine
// without NVIDIA's driver: the script says there is nothing to check and exits 3, the status
// docs/gpu-check.md gives scripts for it, before it builds or starts anything.
func TestGPUCheckWithoutGPU(t *testing.T) {
	bin := t.TempDir()
	fake := "#!/bin/sh\necho 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.' >&2\nexit 9\n"
	if err := os.WriteFile(filepath.Join(bin, "nvidia-smi"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "gpu-check.sh"))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	cmd := exec.Command("bash", script)
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "GPU_CHECK_DIR="+work)
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("gpu-check.sh without a GPU: %v, want exit 3; stdout %s", err, out)
	}
	if !strings.HasPrefix(string(out), "driver      SKIP no NVIDIA GPU here") {
		t.Errorf("gpu-check.sh without a GPU printed %q, want the driver check's SKIP line", out)
	}
	if _, err := os.Stat(filepath.Join(work, "gpucost")); err == nil {
		t.Errorf("gpu-check.sh built gpucost although there was nothing to check")
	}
}
