package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

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
func startExampleAzure(t *testing.T) (map[string]string, string) {
	t.Helper()
	if _, err := exec.LookPath("azurite-blob"); err != nil && os.Getenv("CI") != "true" {
		return nil, "azurite is not installed; install it with: " + azblobtest.InstallAzurite
	}
	endpoint := azblobtest.StartAccount(t, exampleAzureAccount) // fails under CI=true without it
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
