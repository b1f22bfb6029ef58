package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// testVersion is stamped into the binaries the tests build.
const testVersion = "v0.0.0-deploytest"

var (
	binOnce sync.Once
	binDir  string
	binErr  error
	binOut  []byte
)

// staticBinaries builds gpucost and gpucost-queue-server once per test run, static
// (CGO_ENABLED=0) as the daemonless image holds them, and returns their folder.
func staticBinaries(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds gpucost; not in -short")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command on PATH: %v", err)
	}
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "gpucost-deploy-test-"); binErr != nil {
			return
		}
		for _, b := range [][]string{
			{"-ldflags", "-X main.version=" + testVersion, "-o", filepath.Join(binDir, "gpucost"), "./cmd/gpucost"},
			{"-o", filepath.Join(binDir, "gpucost-queue-server"), "./cmd/gpucost-queue-server"},
		} {
			cmd := exec.Command(goCmd, append([]string{"build", "-trimpath"}, b...)...)
			cmd.Dir = ".."
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			if binOut, binErr = cmd.CombinedOutput(); binErr != nil {
				return
			}
		}
	})
	if binErr != nil {
		t.Fatalf("CGO_ENABLED=0 go build ./cmd/gpucost ./cmd/gpucost-queue-server: %v\n%s", binErr, binOut)
	}
	return binDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}
