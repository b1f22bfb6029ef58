package chart

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// TestWriteFile checks that the file's extension picks the format, and the names refused.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	for name, magic := range map[string]string{"replicas.PNG": "\x89PNG", "replicas.svg": "<svg"} {
		path := filepath.Join(dir, name)
		if !Writable(path) {
			t.Errorf("Writable(%s) = false", name)
		}
		if err := demo().WriteFile(path); err != nil {
			t.Fatalf("WriteFile(%s) = %v", name, err)
		}
		data, _ := os.ReadFile(path)
		if !bytes.Contains(data[:min(len(data), 200)], []byte(magic)) {
			t.Errorf("WriteFile(%s) wrote %.20q…, want %q", name, data, magic)
		}
	}
	for _, name := range []string{"replicas.jpg", "replicas", ""} {
		if Writable(name) {
			t.Errorf("Writable(%q) = true, want false", name)
		}
	}
	missing := filepath.Join(dir, "none", "replicas.svg")
	if err := demo().WriteFile(missing); gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.HasPrefix(err.Error(), "--chart "+missing) {
		t.Errorf("WriteFile(into a missing folder) = %v; want %s naming --chart", err, gpucost.EInvalid)
	}
	bad := Line{Series: []Series{{Label: "short", X: []float64{1, 2}, Y: []float64{1}}}}
	if err := bad.WriteFile(filepath.Join(dir, "bad.svg")); err == nil || !strings.HasPrefix(err.Error(), "draw chart ") {
		t.Errorf("WriteFile(a series short of points) = %v; want the drawing's error", err)
	}
}
