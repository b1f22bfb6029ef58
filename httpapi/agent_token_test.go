package httpapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// TestAgentToken reads the token file before $GPUCOST_TOKEN and refuses an empty file, a
// missing one and no token at all.
func TestAgentToken(t *testing.T) {
	dir := t.TempDir()
	file, empty := filepath.Join(dir, "token"), filepath.Join(dir, "empty")
	if err := os.WriteFile(file, []byte(" gpc_file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, env, want, err string }{
		{file, "gpc_env", "gpc_file", ""},
		{"", " gpc_env ", "gpc_env", ""},
		{empty, "gpc_env", "", "is empty: put the secret"},
		{filepath.Join(dir, "missing"), "", "", "--token-file: "},
		{"", " ", "", "--server needs a token"},
	} {
		got, err := AgentToken(c.file, c.env)
		if got != c.want || (c.err == "") != (err == nil) || (err != nil && (!strings.Contains(err.Error(), c.err) || gpucost.ErrorCode(err) != gpucost.EInvalid)) {
			t.Errorf("AgentToken(%q, %q) = %q, %v; want %q, an error with %q", c.file, c.env, got, err, c.want, c.err)
		}
	}
}
