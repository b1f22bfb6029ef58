package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// azureServer answers the Azure Retail Prices API's recorded pages of pricing/azureprices.
func azureServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := "../../pricing/azureprices/testdata/page1.json"
		if r.URL.Query().Get("$skip") == "100" {
			name = "../../pricing/azureprices/testdata/page2.json"
		}
		body, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestCatalogRefreshAzureStoresOffers(t *testing.T) {
	dir := t.TempDir()
	srv := azureServer(t)
	code, out, errOut := runCLI(t, dir, "catalog", "refresh", "--provider", "azure", "--region", "eastus", "--base-url", srv.URL)
	if code != exitOK {
		t.Fatalf("catalog refresh --provider azure: exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"azure", "Azure Retail Prices API 2026-12-02", "3 offers added, 0 replaced",
		"1 skipped: Windows price (Linux prices only)", "1 skipped: not a GPU VM size"} {
		if !strings.Contains(out, want) {
			t.Errorf("catalog refresh output lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runCLI(t, dir, "catalog", "gpus", "--provider", "azure", "--gpu", "H100-SXM", "--output", "json")
	if code != exitOK {
		t.Fatalf("catalog gpus after refresh: exit %d, stderr %s", code, errOut)
	}
	var got struct{ GPUs []map[string]any }
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.GPUs) != 1 {
		t.Fatalf("catalog gpus --output json after refresh = %s (%v), want one row", out, err)
	}
	od, _ := got.GPUs[0]["on_demand"].(map[string]any)
	if od["per_gpu_hour"] != "12.29" || od["instance_type"] != "Standard_ND96isr_H100_v5" {
		t.Errorf("Azure H100 on-demand after refresh = %v, want Standard_ND96isr_H100_v5 at 98.32/8 = 12.29", od)
	}
	code, _, _ = runCLI(t, dir, "catalog", "refresh", "--provider", "azure", "--region", "eastus", "--base-url", srv.URL)
	if code != exitOK {
		t.Fatalf("second refresh: exit %d", code)
	}
}

func TestCatalogRefreshOffline(t *testing.T) {
	dir := t.TempDir()
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	code, _, errOut := runCLI(t, dir, "catalog", "refresh", "--provider", "gcp", "--base-url", down.URL)
	if code != exitUnavailable {
		t.Fatalf("catalog refresh offline: exit %d, want %d; stderr %s", code, exitUnavailable, errOut)
	}
	for _, want := range []string{"cannot be reached", "bundled gcp catalog of 2026-11-22 (10 days old) stays in use"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("catalog refresh offline stderr lacks %q:\n%s", want, errOut)
		}
	}
	if _, err := os.Stat(dir + "/gpucost.db"); err == nil {
		t.Error("an offline refresh created a store")
	}
}

func TestCatalogRefreshBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--provider", "oracle"}, `--provider "oracle": use aws, azure or gcp`},
		{[]string{"--provider", "aws"}, "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"},
		{[]string{"--provider", "gcp"}, "set GPUCOST_GCP_API_KEY"},
	} {
		code, _, errOut := runCLI(t, dir, append([]string{"catalog", "refresh"}, tc.args...)...)
		if code != exitInvalid || !strings.Contains(errOut, tc.want) {
			t.Errorf("catalog refresh %v: exit %d, stderr %q, want exit %d and %q", tc.args, code, errOut, exitInvalid, tc.want)
		}
	}
}
