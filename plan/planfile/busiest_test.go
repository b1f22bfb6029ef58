package planfile

import (
	"strings"
	"testing"
)

// TestReadBusiest sizes for a rate file's busiest interval and says so above the trace's summary.
func TestReadBusiest(t *testing.T) {
	path := write(t, "rates.csv", "timestamp,rate\n2024-05-10 00:00:00,2\n2024-05-10 00:01:00,9\n2024-05-10 00:02:00,4\n")
	rate, notes, tr, err := ReadBusiest(path, TraceOptions{}, 0.2)
	if err != nil || rate != 9 || tr == nil {
		t.Fatalf("ReadBusiest = %v, %q, %v; want 9 requests/s", rate, notes, err)
	}
	want := "Sized for the trace's busiest 1m0s, 9 requests/s from 2024-05-10 00:01:00, with 20% headroom."
	if len(notes) < 2 || notes[0] != want || !strings.HasPrefix(notes[1], "Trace ") {
		t.Errorf("ReadBusiest notes = %q; want %q, then the trace's summary", notes, want)
	}
	_, _, _, err = ReadBusiest("", TraceOptions{}, 0)
	wantInvalid(t, "ReadBusiest(no file)", err, "--trace FILE is required")
}
