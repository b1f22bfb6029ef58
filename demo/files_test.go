package demo

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFilesFor(t *testing.T) {
	if got := FilesFor(filepath.FromSlash("/data/demo.db"), false); got.Bill != filepath.FromSlash("/data/demo-bill.focus.csv") || got.Budgets != filepath.FromSlash("/data/demo-budgets.yaml") {
		t.Errorf("FilesFor(/data/demo.db) = %+v; want the files beside it", got)
	}
	tmp := filepath.Join(os.TempDir(), "gpucost-demo")
	if got := FilesFor("postgres://u@db/gpucost", true); got != FilesAt(tmp) {
		t.Errorf("FilesFor(a PostgreSQL URL) = %+v; want %+v", got, FilesAt(tmp))
	}
}
