package deploy

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
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

// createToken creates a token of role in the store db and returns its secret.
func createToken(t *testing.T, bin string, env []string, db string, role gpucost.Role) string {
	t.Helper()
	cmd := exec.Command(bin, "--db", db, "token", "create", "--name", "deploy-test-"+string(role), "--role", string(role))
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gpucost token create --role %s: %v", role, err)
	}
	return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
}

// startGpucost starts gpucost with args (serve, listening on port 0), stopped when the test
// ends, and returns the address it logs that it serves on.
func startGpucost(t *testing.T, bin string, env []string, args ...string) string {
	t.Helper()
	addr := make(chan string, 1)
	startProcess(t, bin, env, args, func(line string) {
		if m := servingAddr.FindStringSubmatch(line); m != nil {
			addr <- m[1]
		}
	})
	select {
	case a := <-addr:
		return a
	case <-time.After(30 * time.Second):
		t.Fatalf("gpucost %s did not log its address within 30s", strings.Join(args, " "))
	}
	return ""
}

var servingAddr = regexp.MustCompile(`msg=serving addr=(\S+)`)

// startProcess starts bin with args, hands each line of its standard error to line, and stops
// it (SIGTERM, then waits) when the test ends.
func startProcess(t *testing.T, bin string, env, args []string, line func(string)) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("gpucost %s: %v", strings.Join(args, " "), err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line(sc.Text())
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		<-done
		cmd.Wait()
	})
}

// httpGet GETs url with a bearer token (none if "") and returns the body, failing the test on
// a status other than 200.
func httpGet(t *testing.T, url, token string) []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%s", url, resp.Status, body)
	}
	return body
}
