package csvin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// TestFile reads columns by header name whatever their case, order or a byte-order mark, and
// names the flag, file, line and column of a bad value.
func TestFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.csv")
	if err := os.WriteFile(path, []byte("\ufeffName , GB\na, 1.5\nb,x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Open("--in", path, "gb", "name")
	if err != nil {
		t.Fatal(err)
	}
	if !c.Has("gb") || c.Has("date") {
		t.Errorf("Has(gb) = %v, Has(date) = %v; want true, false", c.Has("gb"), c.Has("date"))
	}
	var names []string
	err = c.Each(func(rec []string) error {
		names = append(names, c.Get(rec, "name"))
		_, err := c.Number(rec, "gb")
		return err
	})
	if want := "--in " + path + `:3:2: gb "x" is not a non-negative number`; gpucost.ErrorCode(err) != gpucost.EInvalid || err.Error() != want {
		t.Errorf("Each = %v; want %q", err, want)
	}
	if strings.Join(names, ",") != "a,b" || c.Get([]string{"only"}, "gb") != "" {
		t.Errorf("names %v; want a,b, and nothing for a short record", names)
	}
	if _, err := Open("--in", path, "memory_gb"); err == nil || !strings.Contains(err.Error(), "line 1: no memory_gb column; the header needs memory_gb") {
		t.Errorf("Open(need memory_gb) = %v", err)
	}
}
