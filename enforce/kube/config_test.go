package kube

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// TestConfigOpen checks where the client's token comes from, and the errors that name the flag
// to fix.
func TestConfigOpen(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tokenFile, emptyFile, badCA := write("token", "  file-token\n"), write("empty", "\n"), write("ca.pem", "not a certificate")
	c, err := Config{Server: "https://10.0.0.1:6443", Token: "env-token", TokenFile: tokenFile, Namespaces: []string{"ml"}, Selector: "team=ml"}.Open()
	if err != nil || c.Token != "file-token" || c.Server != "https://10.0.0.1:6443" || c.Selector != "team=ml" || len(c.Namespaces) != 1 || c.HTTP == nil {
		t.Fatalf("Open(token file and variable) = %+v, %v; want the file's token", c, err)
	}
	if c, err := (Config{Server: "https://k", Token: "env-token"}).Open(); err != nil || c.Token != "env-token" {
		t.Errorf("Open(variable only) = %+v, %v; want the variable's token", c, err)
	}
	for _, tt := range []struct {
		name string
		c    Config
		want string
	}{
		{"no token", Config{Server: "https://k"}, "--kube-server needs a bearer token"},
		{"empty token file", Config{Server: "https://k", Token: "env-token", TokenFile: emptyFile}, "--kube-server needs a bearer token"},
		{"missing token file", Config{Server: "https://k", TokenFile: filepath.Join(dir, "none")}, "--kube-token-file: "},
		{"missing CA file", Config{Server: "https://k", Token: "t", CAFile: filepath.Join(dir, "none")}, "--kube-ca-file: "},
		{"bad CA", Config{Server: "https://k", Token: "t", CAFile: badCA}, "--kube-ca-file " + badCA + ": no PEM certificate"},
	} {
		if _, err := tt.c.Open(); gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: Open = %v; want %s starting %q", tt.name, err, gpucost.EInvalid, tt.want)
		}
	}
}
