// Package pgtest starts a real PostgreSQL server on loopback for tests: one cluster per test
// binary, created with initdb in a temporary folder on first use and stopped by Main, and a fresh
// database for each test that asks for one.
//
// A test binary that uses it runs its tests through Main:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// Where PostgreSQL is not installed, Start skips the test with the command that installs it, or
// fails it when the environment variable CI is "true".
package pgtest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Install is the command that installs PostgreSQL where it is missing.
const Install = "apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql"

// cluster is the one server of the test binary.
var cluster struct {
	once sync.Once
	dir  string // holds data/, log and the socket
	bin  string
	port int
	err  error
	n    atomic.Int64 // databases created
}

// Main runs the tests and then stops the cluster, if one was started, and removes its folder.
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// Stop stops the cluster and removes its folder. Main calls it; it does nothing if no cluster ran.
func Stop() {
	if cluster.dir == "" {
		return
	}
	if cluster.err == nil {
		run(cluster.bin, "pg_ctl", "-D", filepath.Join(cluster.dir, "data"), "-m", "immediate", "-w", "stop")
	}
	os.RemoveAll(cluster.dir)
}

// Start returns the URL of a new, empty database on the test binary's cluster, starting the
// cluster on first use. The database is dropped when the test ends.
func Start(t testing.TB) string {
	t.Helper()
	cluster.once.Do(func() { cluster.err = startCluster() })
	if cluster.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL is needed under CI: %v", cluster.err)
		}
		t.Skipf("PostgreSQL is not available (%v); install it with: %s", cluster.err, Install)
	}
	name := fmt.Sprintf("test_%d_%d", os.Getpid(), cluster.n.Add(1))
	ctx := context.Background()
	admin := URL("postgres")
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("connect to the test cluster: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create test database %s: %v", name, err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Errorf("connect to the test cluster to drop %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	return URL(name)
}

// URL returns the URL of the named database on the cluster; it is valid once Start has run.
func URL(database string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", cluster.port, database)
}

// startCluster runs initdb into a new temporary folder and starts the server on a free port.
func startCluster() error {
	bin, err := findBin()
	if err != nil {
		return err
	}
	stopOrphans(bin)
	dir, err := os.MkdirTemp("", clusterPrefix)
	if err != nil {
		return fmt.Errorf("create the cluster folder: %w", err)
	}
	cluster.dir, cluster.bin = dir, bin
	// The owner file names this process, so that a later run stops the cluster if this one dies
	// before Main stops it (pg_ctl leaves the server running on its own).
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return fmt.Errorf("record the cluster's owner: %w", err)
	}
	if err := ownByPostgres(dir); err != nil {
		return err
	}
	data := filepath.Join(dir, "data")
	if out, err := run(bin, "initdb", "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		return fmt.Errorf("initdb: %w\n%s", err, out)
	}
	for range 5 { // a free port may be taken between finding it and the server binding it
		if cluster.port, err = freePort(); err != nil {
			return err
		}
		opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200",
			cluster.port, dir)
		var out []byte
		if out, err = run(bin, "pg_ctl", "-D", data, "-l", filepath.Join(dir, "log"), "-o", opts, "-w", "-t", "30", "start"); err == nil {
			return nil
		}
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		err = fmt.Errorf("pg_ctl start: %w\n%s\n%s", err, out, log)
	}
	return err
}

const (
	clusterPrefix = "gpucost-pgtest-"
	ownerFile     = "owner.pid"
)

// stopOrphans stops and removes the clusters of test processes that died without stopping them.
func stopOrphans(bin string) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), clusterPrefix+"*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue // another process is creating it, or it is not ours
		}
		pid, err := strconv.Atoi(string(b))
		if err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "data", "postmaster.pid")); err == nil {
			run(bin, "pg_ctl", "-D", filepath.Join(dir, "data"), "-m", "immediate", "-w", "stop")
		}
		os.RemoveAll(dir)
	}
}

// processAlive says whether a process with the id runs.
func processAlive(pid int) bool {
	_, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid)))
	if err == nil {
		return true
	}
	if _, err := os.Stat("/proc/self"); err != nil {
		return true // no /proc to tell: assume it runs
	}
	return false
}

// findBin returns the folder of initdb and pg_ctl: Debian's newest, else the PATH's.
func findBin() (string, error) {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) > 0 {
		best, bestV := "", -1
		for _, m := range matches {
			v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(m))))
			if v > bestV {
				best, bestV = filepath.Dir(m), v
			}
		}
		return best, nil
	}
	p, err := exec.LookPath("initdb")
	if err != nil {
		return "", fmt.Errorf("initdb not found in /usr/lib/postgresql/*/bin or PATH")
	}
	return filepath.Dir(p), nil
}

// asPostgres says whether the server's commands run as the user postgres: root may not run them.
func asPostgres() bool { return os.Geteuid() == 0 }

// ownByPostgres gives dir to the user postgres when running as root.
func ownByPostgres(dir string) error {
	if !asPostgres() {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("running as root, PostgreSQL needs the user postgres: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return fmt.Errorf("give %s to postgres: %w", dir, err)
	}
	return nil
}

// run runs one of the server's commands, as postgres when running as root.
func run(bin, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var cmd *exec.Cmd
	if asPostgres() {
		line := shellQuote(filepath.Join(bin, name))
		for _, a := range args {
			line += " " + shellQuote(a)
		}
		cmd = exec.CommandContext(ctx, "su", "postgres", "-s", "/bin/sh", "-c", line)
	} else {
		cmd = exec.CommandContext(ctx, filepath.Join(bin, name), args...)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Dir = os.TempDir()
	err := cmd.Run()
	return out.Bytes(), err
}

func shellQuote(s string) string {
	return "'" + string(bytes.ReplaceAll([]byte(s), []byte("'"), []byte(`'\''`))) + "'"
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
