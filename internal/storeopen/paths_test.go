package storeopen

import (
	"path/filepath"
	"testing"
)

func TestDefaultPath(t *testing.T) {
	for _, tt := range []struct {
		name       string
		env        map[string]string
		path, data string
		home       string
	}{
		{"GPUCOST_DB", map[string]string{"GPUCOST_DB": "/srv/costs.db", "HOME": "/home/a"}, "/srv/costs.db", "/home/a/.local/share/gpucost", "/home/a/.local/share"},
		{"XDG_DATA_HOME", map[string]string{"XDG_DATA_HOME": "/data", "HOME": "/home/a"}, "/data/gpucost/gpucost.db", "/data/gpucost", "/data"},
		{"HOME", map[string]string{"HOME": "/home/a"}, "/home/a/.local/share/gpucost/gpucost.db", "/home/a/.local/share/gpucost", "/home/a/.local/share"},
	} {
		getenv := func(k string) string { return tt.env[k] }
		if got := DefaultPath(getenv); got != filepath.FromSlash(tt.path) {
			t.Errorf("%s: DefaultPath = %q, want %q", tt.name, got, tt.path)
		}
		if got := DataDir(getenv); got != filepath.FromSlash(tt.data) {
			t.Errorf("%s: DataDir = %q, want %q", tt.name, got, tt.data)
		}
		if got := DataHome(getenv); got != filepath.FromSlash(tt.home) {
			t.Errorf("%s: DataHome = %q, want %q", tt.name, got, tt.home)
		}
	}
}
