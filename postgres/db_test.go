package postgres_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storetest"
	"github.com/gpucost/gpucost/postgres"
	"github.com/gpucost/gpucost/postgres/pgtest"
)

// TestOpenConcurrently starts several replicas on one new database at once: the advisory lock
// lets one migrate and the others find the schema done.
func TestOpenConcurrently(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Start(t)
	const replicas = 4
	dbs := make([]*postgres.DB, replicas)
	errs := make([]error, replicas)
	var wg sync.WaitGroup
	for i := range replicas {
		wg.Go(func() { dbs[i], errs[i] = postgres.Open(ctx, url) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: Open = %v", i, err)
		}
		defer dbs[i].Close()
	}
	var versions, distinct int
	if err := dbs[0].Pool().QueryRow(ctx, `SELECT count(*), count(DISTINCT version) FROM schema_migrations`).Scan(&versions, &distinct); err != nil {
		t.Fatal(err)
	}
	if versions == 0 || versions != distinct {
		t.Errorf("schema_migrations holds %d rows for %d versions, want one each", versions, distinct)
	}
	again, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatalf("Open of a migrated database: %v", err)
	}
	again.Close()
}

func TestSettings(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	if v, err := db.Setting(ctx, "idle_below", "5"); err != nil || v != "5" {
		t.Errorf("Setting(unset) = %q, %v; want the default 5", v, err)
	}
	for _, v := range []string{"3", "7"} {
		if err := db.SetSetting(ctx, "idle_below", v); err != nil {
			t.Fatal(err)
		}
		if got, err := db.Setting(ctx, "idle_below", "5"); err != nil || got != v {
			t.Errorf("Setting after SetSetting(%s) = %q, %v", v, got, err)
		}
	}
}

// TestOpenHidesPassword checks that a failed Open names the database without its password.
func TestOpenHidesPassword(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := postgres.Open(ctx, "postgres://gpucost:s3cret-pw@127.0.0.1:1/gpucost?sslmode=disable&connect_timeout=2")
	if err == nil {
		t.Fatal("Open of a closed port succeeded")
	}
	if strings.Contains(err.Error(), "s3cret-pw") {
		t.Errorf("Open error shows the password: %v", err)
	}
	if _, err := postgres.Open(ctx, "postgres://a:b@[::1"); gpucost.ErrorCode(err) != gpucost.EInvalid || strings.Contains(err.Error(), ":b@") {
		t.Errorf("Open(bad URL) = %v, want an invalid-input error without the password", err)
	}
}

// TestConcurrentReplicasMerge has two replicas write the two halves of every minute (the even
// and odd 10-second samples) of the same GPUs at once, poll by poll: the rows of a series stay
// locked while one merges, so the store ends with what one write of all samples stores.
func TestConcurrentReplicasMerge(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Start(t)
	samples := storetest.PolledSamples(20, 30*time.Minute, 10*time.Second)
	var halves [2][][]gpucost.Sample // polls of 20 GPUs × 3 instants each
	for i := 0; i < len(samples); i += 60 {
		var poll [2][]gpucost.Sample
		for _, s := range samples[i:min(i+60, len(samples))] {
			h := s.Time.Unix() / 10 % 2
			poll[h] = append(poll[h], s)
		}
		halves[0], halves[1] = append(halves[0], poll[0]), append(halves[1], poll[1])
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	stats := make([]gpucost.WriteStats, 2)
	for r := range 2 {
		db, err := postgres.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		wg.Go(func() {
			for _, poll := range halves[r] {
				st, err := db.WriteRollups(ctx, storetest.RollupsOf(poll))
				if err != nil {
					errs[r] = err
					return
				}
				stats[r].Conflicts += st.Conflicts
				stats[r].Unchanged += st.Unchanged
			}
		})
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: %v", r, err)
		}
		if stats[r].Conflicts != 0 || stats[r].Unchanged != 0 {
			t.Errorf("replica %d: %+v, want no conflicts and nothing unchanged", r, stats[r])
		}
	}
	whole := openDB(t)
	if _, err := whole.WriteRollups(ctx, storetest.RollupsOf(samples)); err != nil {
		t.Fatal(err)
	}
	shared, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer shared.Close()
	type key struct {
		uuid    string
		start   int64
		samples int
		cover   uint64
	}
	read := func(db *postgres.DB, w time.Duration) []key {
		var out []key
		if err := db.ScanRollups(ctx, w, gpucost.RollupFilter{}, func(r *gpucost.Rollup) error {
			out = append(out, key{r.Series.GPU.UUID, r.Start.Unix(), r.Samples, r.Coverage})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, w := range []time.Duration{time.Minute, time.Hour} {
		got, want := read(shared, w), read(whole, w)
		if len(got) != len(want) {
			t.Fatalf("%s rollups: %d, want %d", w, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s rollup %d = %+v, want %+v", w, i, got[i], want[i])
			}
		}
	}
}

// TestRejectsTextPostgresCannotHold checks that a bill line with a NUL byte fails its import
// whole, naming the line and field.
func TestRejectsTextPostgresCannotHold(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	lines := storetest.BillLines(2, 3)
	lines[4].ResourceName = "gpu\x00node"
	lines[4].Line = 17
	_, err := db.PutCosts(ctx, gpucost.CostImport{Name: "bad.csv", Checksum: "bad"}, storetest.SeqOf(lines), nil)
	if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "ResourceName") || !strings.Contains(err.Error(), "source line 17") {
		t.Errorf("PutCosts(line with a NUL byte) = %v, want an invalid-input error naming source line 17 and ResourceName", err)
	}
	if imps, err := db.CostImports(ctx); err != nil || len(imps) != 0 {
		t.Errorf("after a rejected import: %d imports, %v; want none", len(imps), err)
	}
}
