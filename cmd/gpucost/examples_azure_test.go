package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/azblob"
	"github.com/gpucost/gpucost/azblob/azblobtest"
)

// exampleAzureAccount is the storage account the examples name (azure://costsacct/…); Azurite
// serves it with its development key.
const exampleAzureAccount = "costsacct"

// isAzureExample reports whether line's command reaches Azure Blob storage.
func isAzureExample(line string) bool {
	return strings.Contains(exampleCommand(line), " azure://")
}

// startExampleAzure starts Azurite on loopback serving the account costsacct, whose container
// exports holds an EA actual-cost export under gpu-actual/ (one run and its manifest), and
// returns the environment that reaches it; "" and why where Azurite is not installed (failed
// under CI=true).
func startExampleAzure(t *testing.T, dir string) (map[string]string, string) {
	t.Helper()
	bin, err := exec.LookPath("azurite-blob")
	if err != nil {
		msg := "azurite is not installed; install it with: " + azblobtest.InstallAzurite
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		return nil, msg
	}
	addr := freeLoopback(t)
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, "--blobHost", "127.0.0.1", "--blobPort", port, "--location", filepath.Join(dir, "azurite"),
		"--silent", "--skipApiVersionCheck", "--disableProductStyleUrl")
	cmd.Env = append(os.Environ(), "AZURITE_ACCOUNTS="+exampleAzureAccount+":"+azblobtest.Key)
	log, err := os.Create(filepath.Join(dir, "azurite.log"))
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
	endpoint := "http://" + addr + "/" + exampleAzureAccount
	if !waitReady(anyAnswer(endpoint), 30*time.Second) {
		out, _ := os.ReadFile(log.Name())
		t.Fatalf("azurite did not start:\n%s", out)
	}
	c, err := azblob.New(azblob.Config{Account: exampleAzureAccount, Container: "exports", Endpoint: endpoint, Key: azblobtest.Key})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Create(ctx); err != nil {
		t.Fatalf("create container exports: %v", err)
	}
	bill, err := os.ReadFile("azure_actual.csv")
	if err != nil {
		t.Fatal(err)
	}
	const run = "gpu-actual/20251001-20251031/run-1/"
	manifest := fmt.Sprintf(`{"blobCount":1,"blobs":[{"blobName":"%spart_0_0001.csv"}]}`, run)
	for name, data := range map[string][]byte{run + "part_0_0001.csv": bill, run + "manifest.json": []byte(manifest)} {
		if err := c.Put(ctx, name, data); err != nil {
			t.Fatalf("put %s: %v", name, err)
		}
	}
	return map[string]string{"AZURE_STORAGE_CONNECTION_STRING": "DefaultEndpointsProtocol=http;AccountName=" + exampleAzureAccount +
		";AccountKey=" + azblobtest.Key + ";BlobEndpoint=" + endpoint + ";"}, ""
}
