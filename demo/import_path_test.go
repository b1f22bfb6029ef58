package demo

import (
	"context"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry"
	"github.com/gpucost/gpucost/telemetry/teleimport"
)

// rollupLog is a gpucost.RollupStore that keeps what each WriteRollups call was given, as
// text, so two writers' writes compare call by call, field by field.
type rollupLog struct{ calls [][]string }

func (l *rollupLog) WriteRollups(ctx context.Context, rs []gpucost.Rollup) (gpucost.WriteStats, error) {
	call := make([]string, len(rs))
	for i, r := range rs {
		series := *r.Series
		r.Series = nil
		call[i] = fmt.Sprintf("%v %v %+v", series.GPU, series.Labels, r)
	}
	l.calls = append(l.calls, call)
	return gpucost.WriteStats{Written: len(rs)}, nil
}

func (l *rollupLog) ScanRollups(context.Context, time.Duration, gpucost.RollupFilter, func(*gpucost.Rollup) error) error {
	return nil
}

// TestImportTelemetryIsTheImportPath: ImportTelemetry writes the rollups, batch by batch, that
// gpucost import telemetry writes from the load's dcgm-exporter text (WriteScrapes), over a
// Monday (the evaluation job's day, its job label changing at midnight) with the step applied,
// and with a writer that flushes often, so that a sample out of place would show.
func TestImportTelemetryIsTheImportPath(t *testing.T) {
	ctx := context.Background()
	// The fleet of a 29-day load that applies the step on 3 November; a day of it from Sunday
	// 22 November 21:30, half an hour off the hour.
	fleet := Load{End: time.Date(2026, 11, 24, 3, 0, 0, 0, time.UTC), Days: 29}.Applied(Fleet())
	l := Load{End: time.Date(2026, 11, 23, 21, 30, 0, 0, time.UTC), Days: 1}

	text := &rollupLog{}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(WriteScrapes(pw, fleet, l.From(), l.End, func() {})) }()
	want, err := teleimport.Import(ctx, &telemetry.Writer{Store: text, IdleBelow: 5, MaxBuffered: 7000}, pr, "demo.prom",
		teleimport.Options{Format: teleimport.DCGM})
	if err != nil || want.Skipped > 0 {
		t.Fatalf("import telemetry of WriteScrapes' text: %+v, %v", want, err)
	}

	direct := &rollupLog{}
	hours := 0
	got, err := l.ImportTelemetry(ctx, &telemetry.Writer{Store: direct, IdleBelow: 5, MaxBuffered: 7000}, fleet, func() { hours++ })
	if err != nil {
		t.Fatal(err)
	}
	if got.Samples != want.Samples || got.Rollups != want.Rollups || hours != 24 {
		t.Errorf("ImportTelemetry = %+v with %d hour ticks; the import path read %d samples and wrote %d rollups, 24 ticks",
			got, hours, want.Samples, want.Rollups)
	}
	if len(direct.calls) != len(text.calls) || len(text.calls) < 10 {
		t.Fatalf("ImportTelemetry wrote in %d calls, the import path in %d; want the same, at least 10", len(direct.calls), len(text.calls))
	}
	for i := range text.calls {
		if !slices.Equal(direct.calls[i], text.calls[i]) {
			for k := range min(len(direct.calls[i]), len(text.calls[i])) {
				if direct.calls[i][k] != text.calls[i][k] {
					t.Fatalf("write %d, rollup %d:\nImportTelemetry %s\nimport path     %s", i, k, direct.calls[i][k], text.calls[i][k])
				}
			}
			t.Fatalf("write %d: ImportTelemetry wrote %d rollups, the import path %d", i, len(direct.calls[i]), len(text.calls[i]))
		}
	}
}
