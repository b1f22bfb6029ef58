package teleimport

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/sqlite"
	"github.com/gpucost/gpucost/telemetry"
)

func TestParseFormat(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Format
		ok   bool
	}{
		{"dcgm", DCGM, true},
		{"nvidia-smi", NvidiaSMI, true},
		{"csv", CSV, true},
		{"prometheus", "", false},
		{"", "", false},
	} {
		got, err := ParseFormat(c.in)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q, ok %v", c.in, got, err, c.want, c.ok)
		}
		if err != nil && gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("ParseFormat(%q) error code %s; want %s", c.in, gpucost.ErrorCode(err), gpucost.EInvalid)
		}
	}
}

// TestImportFile: an nvidia-smi recording is stored under the file's name as its host, a dcgm
// line without a timestamp takes the file's modification time, a bad line is skipped and named,
// and importing the file again stores nothing new.
func TestImportFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sqlite.Open(ctx, filepath.Join(dir, "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	smi := filepath.Join(dir, "gpu-node-7.csv")
	body := "2026/11/20 10:00:00.000, 0, GPU-aaa, NVIDIA A100-SXM4-80GB, 40, 1000, 81920, 200.5, 50, Disabled\n" +
		"2026/11/20 10:00:10.000, 0, GPU-aaa, NVIDIA A100-SXM4-80GB, 60, 1000, 81920, 210.0, 51, Disabled\n" +
		"not a line\n"
	if err := os.WriteFile(smi, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	prom := filepath.Join(dir, "scrape.prom")
	if err := os.WriteFile(prom, []byte("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-bbb\",Hostname=\"n1\",modelName=\"NVIDIA L4\"} 30\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2026, 11, 20, 9, 0, 30, 0, time.UTC)
	if err := os.Chtimes(prom, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	var progressed int64
	im := &Importer{
		Writer: func(context.Context) (*telemetry.Writer, error) {
			return &telemetry.Writer{Store: db, IdleBelow: 5}, nil
		},
		Progress: func(name string, size int64) Progress { return &countBar{n: &progressed} },
	}
	all, err := im.ImportFiles(ctx, []string{smi}, Options{Format: NvidiaSMI})
	if err != nil {
		t.Fatal(err)
	}
	st := all[0]
	if st.File != smi || st.Lines != 3 || st.Samples != 2 || st.Skipped != 1 || st.Rollups == 0 {
		t.Errorf("ImportFiles(%s) = %+v; want 3 lines, 2 samples, 1 skipped, rollups written", smi, st)
	}
	if len(st.Skips) != 1 || !strings.HasPrefix(st.Skips[0], smi+":3") {
		t.Errorf("skips %q; want the third line named", st.Skips)
	}
	if progressed != int64(len(body)) {
		t.Errorf("progress saw %d bytes; want %d", progressed, len(body))
	}
	var hosts []string
	err = db.ScanRollups(ctx, time.Minute, gpucost.RollupFilter{From: mtime.Add(-time.Hour), To: mtime.Add(2 * time.Hour)},
		func(r *gpucost.Rollup) error { hosts = append(hosts, r.Series.GPU.Host); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(hosts) == 0 || hosts[0] != "gpu-node-7" {
		t.Errorf("stored rollups of hosts %q; want gpu-node-7 (the file's name)", hosts)
	}
	again, err := im.ImportFile(ctx, smi, Options{Format: NvidiaSMI})
	if err != nil || again.Rollups != 0 || again.Repeated != st.Rollups {
		t.Errorf("ImportFile again = %+v, %v; want all %d rollups already stored", again, err, st.Rollups)
	}
	dst, err := im.ImportFile(ctx, prom, Options{Format: DCGM})
	if err != nil || dst.Samples != 1 || dst.Skipped != 0 {
		t.Errorf("ImportFile(%s) = %+v, %v; want the line stored at the file's time", prom, dst, err)
	}
	if _, err := im.ImportFile(ctx, filepath.Join(dir, "missing.prom"), Options{Format: DCGM}); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("ImportFile of a missing file: %v; want an %s error", err, gpucost.EInvalid)
	}
}

type countBar struct{ n *int64 }

func (c *countBar) Write(p []byte) (int, error) { *c.n += int64(len(p)); return len(p), nil }
func (c *countBar) Finish() error               { return nil }

// TestImportModel: Options.Model replaces the model every sample reports.
func TestImportModel(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	body := "2026/11/20 10:00:00.000, 0, GPU-aaa, Graphics Device, 40, 1000, 40960, 200.5, 50\n"
	w := &telemetry.Writer{Store: db, IdleBelow: 5}
	st, err := Import(ctx, w, strings.NewReader(body), "n.csv", Options{Format: NvidiaSMI, Model: "NVIDIA A100-SXM4-40GB"})
	if err != nil || st.Samples != 1 {
		t.Fatalf("Import = %+v, %v; want 1 sample", st, err)
	}
	var models []string
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	err = db.ScanRollups(ctx, time.Minute, gpucost.RollupFilter{From: t0, To: t0.Add(3 * time.Hour)},
		func(r *gpucost.Rollup) error { models = append(models, r.Series.GPU.Model); return nil })
	if err != nil || len(models) == 0 || models[0] != "NVIDIA A100-SXM4-40GB" {
		t.Errorf("stored models %q, %v; want NVIDIA A100-SXM4-40GB (--model)", models, err)
	}
}
