package focus

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/gpucost/gpucost"
)

// Options.Extra keeps the extra columns chosen and reads past the others, in CSV and Parquet:
// the FOCUS sample's unique Id column is dropped by default in an import.
func TestReadWithExtra(t *testing.T) {
	none := func(string) bool { return false }
	team := func(c string) bool { return c == "x_Team" }
	for _, tc := range []struct {
		file          string
		keep          func(string) bool
		kept, dropped []string
	}{
		{"testdata/focus_1_2.csv", nil, []string{"x_Team", "x_GPUModel"}, nil},
		{"testdata/focus_1_2.csv", team, []string{"x_Team"}, []string{"x_GPUModel"}},
		{"testdata/focus_1_2.csv", none, nil, []string{"x_Team", "x_GPUModel"}},
		{"testdata/focus_sample.csv", none, nil, []string{"Id"}},
		{"testdata/focus_sample.csv", nil, []string{"Id"}, nil},
	} {
		b, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		emit := func(l *gpucost.CostLine) error {
			for k := range l.Extra {
				seen[k] = true
			}
			return nil
		}
		st, err := ReadWith(bytes.NewReader(b), tc.file, Options{Extra: tc.keep}, emit)
		if err != nil {
			t.Fatal(err)
		}
		pq := toParquet(t, b)
		pst, err := ReadParquetWith(bytes.NewReader(pq), int64(len(pq)), tc.file, Options{Extra: tc.keep}, emit)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []Stats{st, pst} { // in file order, which in Parquet is the writer's
			if !sameSet(s.Kept, tc.kept) || !sameSet(s.Unknown, tc.dropped) {
				t.Errorf("ReadWith(%s): Kept %q, Unknown %q; want %q, %q", tc.file, s.Kept, s.Unknown, tc.kept, tc.dropped)
			}
		}
		for k := range seen {
			if !slices.Contains(tc.kept, k) {
				t.Errorf("ReadWith(%s): a line has extra %s, want only %q", tc.file, k, tc.kept)
			}
		}
	}
}

// toParquet rewrites a FOCUS CSV file as Parquet, extras included.
func toParquet(t *testing.T, csv []byte) []byte {
	t.Helper()
	var lines []gpucost.CostLine
	st, err := Read(bytes.NewReader(csv), "in.csv", func(l *gpucost.CostLine) error {
		lines = append(lines, Clone(l))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, WriterOptions{Format: Parquet, Extra: st.Kept})
	if err != nil {
		t.Fatal(err)
	}
	for i := range lines {
		if err := w.Write(&lines[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}
