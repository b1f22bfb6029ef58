package sqlite

import (
	"context"
	"maps"
	"reflect"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storetest"
)

// A scan gives the lines of an import that hold the same tags one map, across its chunks, and
// each line the tags it was stored with; another import's lines get maps of their own.
func TestScanCostsSharesMaps(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	lines := storetest.BillLines(100, 300) // 30,000 lines: four chunks
	for i, name := range []string{"one", "two"} {
		if _, err := db.PutCosts(ctx, gpucost.CostImport{Name: name, Checksum: name}, storetest.SeqOf(lines[i*15000:(i+1)*15000]), nil); err != nil {
			t.Fatal(err)
		}
	}
	if got := countRows(t, db, "cost_chunks"); got < 4 {
		t.Fatalf("%d chunks stored, want at least 4", got)
	}
	byTeam := map[string]map[uintptr]bool{} // the maps holding each team, by address
	n := 0
	err := db.ScanCosts(ctx, gpucost.CostFilter{}, func(l *gpucost.CostLine) error {
		if want := lines[n].Tags; !maps.Equal(l.Tags, want) {
			t.Fatalf("line %d: tags %v, want %v", n, l.Tags, want)
		}
		team := l.Tags["team"]
		if byTeam[team] == nil {
			byTeam[team] = map[uintptr]bool{}
		}
		byTeam[team][reflect.ValueOf(l.Tags).Pointer()] = true
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(lines) {
		t.Fatalf("scanned %d lines, want %d", n, len(lines))
	}
	for team, addrs := range byTeam {
		if len(addrs) != 2 {
			t.Errorf("team %s: the lines hold %d maps, want 2 (one an import)", team, len(addrs))
		}
	}
}
