package pqpage

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/gpucost/gpucost/billing/internal/limits"
)

type row struct {
	Name   *string  `parquet:"name,optional,dict"`
	Amount int64    `parquet:"amount"`
	Tags   []string `parquet:"tags,list"`
}

// chunk writes rows in one row group, a row at a time with pages of pageRows bytes (so a page
// a row), and opens column col of the file's one row group.
func chunk(t *testing.T, rows []row, pageRows int, col string) *Cursor {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf, parquet.PageBufferSize(pageRows))
	for i := range rows {
		if _, err := w.Write(rows[i : i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	leaf, ok := f.Schema().Lookup(strings.Split(col, ".")...)
	if !ok {
		t.Fatalf("no column %s", col)
	}
	c := new(Cursor)
	c.Open(f.RowGroups()[0].ColumnChunks()[leaf.ColumnIndex].Pages(), leaf.MaxDefinitionLevel)
	t.Cleanup(c.Close)
	return c
}

func str(s string) *string { return &s }

// The cursor gives every slot, nulls apart, through dictionary and plain pages, and K indexes
// the value arrays either way.
func TestCursorValues(t *testing.T) {
	names := []*string{str("gpu"), nil, str("cpu"), str("gpu"), nil, str("disk"), str("gpu")}
	var rows []row
	for i, n := range names {
		rows = append(rows, row{Name: n, Amount: int64(i * 10)})
	}
	c := chunk(t, rows, 3, "name")
	for i, want := range names {
		ok, err := c.Next()
		if err != nil {
			t.Fatalf("Next at row %d: %v", i, err)
		}
		if ok != (want != nil) || ok && string(c.Bytes(c.K)) != *want {
			t.Errorf("row %d: Next = %v, %q; want %v", i, ok, c.Bytes(c.K), want)
		}
	}
	if _, err := c.Next(); err != io.EOF {
		t.Errorf("Next past the chunk = %v, want io.EOF", err)
	}
	if c.Gen == 0 || c.ChunkDict == nil {
		t.Errorf("after a dictionary column Gen = %d, ChunkDict %v; want a dictionary counted", c.Gen, c.ChunkDict)
	}

	a := chunk(t, rows, 3, "amount")
	for i := range rows {
		n, err := a.Run(len(rows))
		if err != nil || n == 0 {
			t.Fatalf("Run at row %d = %d, %v", i, n, err)
		}
		if k, ok := a.Take(); !ok || a.Int(k) != int64(i*10) || a.Value(k).Int64() != int64(i*10) {
			t.Errorf("row %d: Take = %d, %v (value %d); want %d", i, k, ok, a.Int(k), i*10)
		}
	}
}

// PeekRep tells where the rows of a repeated column start.
func TestCursorRepeated(t *testing.T) {
	rows := []row{{Tags: []string{"a", "b"}}, {Tags: nil}, {Tags: []string{"c"}}}
	c := chunk(t, rows, 3, "tags.list.element")
	var got [][]string
	for {
		rep, ok, err := c.PeekRep()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if rep == 0 {
			got = append(got, []string{})
		}
		if present, _ := c.Next(); present {
			got[len(got)-1] = append(got[len(got)-1], string(c.Bytes(c.K)))
		}
	}
	if len(got) != 3 || strings.Join(got[0], ",") != "a,b" || len(got[1]) != 0 || strings.Join(got[2], ",") != "c" {
		t.Errorf("rows by PeekRep = %q, want [[a b] [] [c]]", got)
	}
}

// A value past limits.MaxField is a *limits.TooLong naming its index among the page's values.
func TestCursorTooLong(t *testing.T) {
	long := strings.Repeat("x", limits.MaxField+1)
	rows := []row{{Tags: []string{"a"}}, {Tags: []string{"b", long}}}
	c := chunk(t, rows, 2, "tags.list.element") // a page a row
	var err error
	for n := 0; err == nil && n < 10; n++ {
		_, err = c.Next()
	}
	var tl *limits.TooLong
	if !errors.As(err, &tl) || tl.Line != 1 || tl.Limit != limits.MaxField {
		t.Errorf("Next over the page [b, long] = %v; want TooLong at value 1", err)
	}
}

// A dictionary column whose every value is null has an empty dictionary and no indexes: its page
// loads, each slot null.
func TestCursorAllNullDictionary(t *testing.T) {
	c := chunk(t, []row{{Amount: 1}, {Amount: 2}}, 1<<20, "name")
	for i := range 2 {
		ok, err := c.Next()
		if err != nil || ok {
			t.Fatalf("slot %d: Next() = %v, %v; want false, nil", i, ok, err)
		}
	}
	if _, err := c.Next(); err != io.EOF {
		t.Errorf("Next() after the last slot: %v, want io.EOF", err)
	}
}

// maxIndex finds the largest index wherever it lies, a negative one above any dictionary.
func TestMaxIndex(t *testing.T) {
	for _, tc := range []struct {
		idx  []int32
		want uint32
	}{
		{[]int32{0}, 0},
		{[]int32{3, 1, 2}, 3},
		{[]int32{1, 2, 3, 4, 9, 5, 6}, 9},
		{[]int32{1, 2, 3, 4, 5, 6, 7, 8, 10}, 10},
		{[]int32{0, 0, -1, 0, 0}, 1<<32 - 1},
	} {
		if got := maxIndex(tc.idx); got != tc.want {
			t.Errorf("maxIndex(%v) = %d, want %d", tc.idx, got, tc.want)
		}
	}
}

// indexesIn refuses an index outside the dictionary wherever it lies, below and above the
// length from which parquet-go bounds the indexes.
func TestIndexesIn(t *testing.T) {
	for _, size := range []int{1, 7, vectorIndexes - 1, vectorIndexes, 1000, 4099} {
		idx := make([]int32, size)
		for i := range idx {
			idx[i] = int32(i % 17)
		}
		n := min(size, 17)
		if !indexesIn(idx, n) {
			t.Errorf("indexesIn(%d indexes below %d, %d) = false, want true", size, n, n)
		}
		for _, at := range []int{0, size / 2, size - 1} {
			for _, bad := range []int32{int32(n), 1 << 30, -1, -1 << 31} {
				was := idx[at]
				idx[at] = bad
				if indexesIn(idx, n) {
					t.Errorf("indexesIn(%d indexes with %d at %d, %d) = true, want false", size, bad, at, n)
				}
				idx[at] = was
			}
		}
	}
}
