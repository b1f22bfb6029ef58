// Package azblobtest starts Azurite, Microsoft's Azure Storage emulator, as a real server
// process on loopback for the tests of every package that reads Azure blobs.
package azblobtest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpucost/gpucost/azblob"
)

// Azurite's well-known development account and key.
const (
	Account = "devstoreaccount1"
	Key     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// InstallAzurite is the command that installs the Azurite the tests need.
const InstallAzurite = "npm install -g azurite@3.37.0"

// Start starts Azurite's blob service in a temporary folder and returns its blob endpoint
// (http://127.0.0.1:PORT/devstoreaccount1); it is killed when the test ends. Without Azurite
// the test fails under CI=true and is skipped otherwise, naming the install command.
func Start(t testing.TB) string {
	t.Helper()
	return StartAccount(t, Account)
}

// StartAccount is Start serving the storage account account (with Key) instead of Azurite's
// development account; the endpoint ends in /account.
func StartAccount(t testing.TB, account string) string {
	t.Helper()
	bin, err := exec.LookPath("azurite-blob")
	if err != nil {
		msg := "azurite is not installed; install it with: " + InstallAzurite
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := t.TempDir()
	cmd := exec.Command(bin, "--blobHost", "127.0.0.1", "--blobPort", fmt.Sprint(port), "--location", dir,
		"--silent", "--skipApiVersionCheck", "--disableProductStyleUrl")
	if account != Account {
		cmd.Env = append(os.Environ(), "AZURITE_ACCOUNTS="+account+":"+Key)
	}
	log, err := os.Create(filepath.Join(t.TempDir(), "azurite.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start azurite: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		log.Close()
	})
	endpoint := fmt.Sprintf("http://127.0.0.1:%d/%s", port, account)
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(endpoint)
		if err == nil {
			res.Body.Close()
			return endpoint
		}
		if time.Now().After(deadline) {
			out, _ := os.ReadFile(log.Name())
			t.Fatalf("azurite did not start: %v\n%s", err, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Container creates the container called name at endpoint and returns it, or fails the test.
func Container(t testing.TB, endpoint, name string) *azblob.Container {
	t.Helper()
	c, err := azblob.New(azblob.Config{Account: Account, Container: name, Endpoint: endpoint, Key: Key})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Create(context.Background()); err != nil {
		t.Fatalf("create container %s: %v", name, err)
	}
	return c
}
