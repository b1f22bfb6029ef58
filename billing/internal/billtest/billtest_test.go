package billtest

import (
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/gpucost/gpucost"
)

func TestLine(t *testing.T) {
	c := gpucost.CostLine{Line: 3, Provider: "AWS", ChargePeriodStart: time.Date(2024, 9, 1, 0, 0, 0, 0, time.UTC),
		BilledCost: gpucost.Money{Nanos: 1_500_000_000, Currency: "USD"}, Tags: gpucost.Labels{"team": "ml"}}
	want := `line=3 provider="AWS" start="2024-09-01T00:00:00Z" billed="USD 1.5" tags="team=ml"`
	if got := Line(&c); got != want {
		t.Errorf("Line(%+v) =\n%s\nwant\n%s", c, got, want)
	}
}

func TestNanos(t *testing.T) {
	tests := map[string]int64{"1.5": 1_500_000_000, "0.0000000005": 0, "0.0000000015": 2, "-0.0000000025": -2, "0.00000000251": 3}
	for s, want := range tests {
		r, _ := new(big.Rat).SetString(s)
		if got := Nanos(r); got != want {
			t.Errorf("Nanos(%s) = %d, want %d", s, got, want)
		}
	}
}

func TestRawRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.csv")
	if err := os.WriteFile(path, []byte("A,b\n1,\"x,y\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := RawRows(t, path, strings.ToLower)
	if len(rows) != 1 || rows[0]["a"] != "1" || rows[0]["b"] != "x,y" {
		t.Errorf("RawRows(%s) = %v, want [map[a:1 b:x,y]]", path, rows)
	}
}

func TestDiffLines(t *testing.T) {
	if got := DiffLines("a\nb\n", "a\nc\n"); !strings.Contains(got, "line 2") {
		t.Errorf("DiffLines(a b, a c) = %q, want line 2", got)
	}
	if got := DiffLines("a", "a"); got != "" {
		t.Errorf("DiffLines(a, a) = %q, want empty", got)
	}
}

func TestStream(t *testing.T) {
	s := NewStream("h\n", 5, 2, func(dst []byte, i int) []byte { return append(dst, byte('0'+i), '\n') })
	got, err := io.ReadAll(iotest.OneByteReader(s))
	if err != nil || string(got) != "h\n0\n1\n2\n3\n4\n" {
		t.Errorf("ReadAll(NewStream(h, 5 rows)) = %q, %v; want header and rows 0–4", got, err)
	}
	if got, _ := io.ReadAll(NewStream("", 0, 2, nil)); len(got) != 0 {
		t.Errorf("ReadAll(empty Stream) = %q, want nothing", got)
	}
}
