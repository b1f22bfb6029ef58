package teleimport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// TestOneModel: files of one model give it; files of two, or of none, are refused, naming what
// they hold.
func TestOneModel(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	head := "timestamp,gpu,util,memory_used_mib,memory_total_mib,power_w,host,model,labels\n"
	a100 := write("a.csv", head+"2026-11-02T10:00:00Z,GPU-1,87.5,61440,81920,310.5,n1,NVIDIA A100-SXM4-80GB,\n")
	l4 := write("b.csv", head+"2026-11-02T10:00:00Z,GPU-2,10,100,23034,40,n2,NVIDIA L4,\n")
	none := write("c.csv", head+"2026-11-02T10:00:00Z,GPU-3,10,100,23034,40,n3,,\n")
	o := Options{Format: CSV}
	if got, err := OneModel([]string{a100}, o); got != "NVIDIA A100-SXM4-80GB" || err != nil {
		t.Errorf("OneModel(one A100 file) = %q, %v; want NVIDIA A100-SXM4-80GB", got, err)
	}
	for _, tc := range []struct {
		paths []string
		named string
	}{{[]string{a100, l4}, "NVIDIA A100-SXM4-80GB, NVIDIA L4"}, {[]string{none}, "no model"}} {
		_, err := OneModel(tc.paths, o)
		if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "the samples name "+tc.named+": give --model") {
			t.Errorf("OneModel(%d files) = %v; want an invalid error naming %s", len(tc.paths), err, tc.named)
		}
	}
}
