package awscur

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// rowStarts finds the same rows as a level-by-level scan, for rows of every length around the
// eight levels it reads at a time, and stops before the row after max.
func TestRowStarts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, rowLen := range []int{1, 2, 3, 7, 8, 9, 17, 40} {
		for _, n := range []int{0, 1, 5, 8, 15, 16, 17, 100, 1000} {
			reps := make([]byte, n)
			for i := range reps {
				if rng.IntN(rowLen) != 0 {
					reps[i] = byte(1 + rng.IntN(3)) // any level but 0 continues a row
				}
			}
			for _, max := range []int{0, 1, 3, n / 2, n + 1} {
				wantN, want := len(reps), []int32{}
				for i, l := range reps {
					if l != 0 {
						continue
					}
					if len(want) == max {
						wantN = i
						break
					}
					want = append(want, int32(10+i))
				}
				gotN, got := rowStarts(reps, max, []int32{}, 10)
				if gotN != wantN || !slices.Equal(got, want) {
					t.Errorf("rowStarts(%v, %d) = %d, %v; want %d, %v", reps, max, gotN, got, wantN, want)
				}
			}
		}
	}
}

// Tag set keys differ wherever the tags differ: a map's entries, its dictionaries, which map
// they are in, and whether an entry has a plain side.
func TestMapHeader(t *testing.T) {
	seen := map[uint64]string{}
	for _, tc := range []struct {
		name   string
		f      field
		kg, vg uint64
	}{
		{"resource tags", mResourceTags, 1, 1},
		{"tags", mTags, 1, 1},
		{"new key dictionary", mResourceTags, 2, 1},
		{"new value dictionary", mResourceTags, 1, 2},
		{"largest generations", mCostCategory, 1<<genBits - 1, 1<<genBits - 1},
	} {
		key := mapHeader(nil, tc.f, tc.kg, tc.vg)
		if len(key) != 1 || key[0]&wordHeader != wordHeader || key[0] == encTagCol {
			t.Fatalf("mapHeader(%s) = %x, want one header word", tc.name, key)
		}
		if other, dup := seen[key[0]]; dup {
			t.Errorf("mapHeader(%s) = mapHeader(%s) = %x", tc.name, other, key[0])
		}
		seen[key[0]] = tc.name
	}
	big := mapHeader(nil, mResourceTags, 1<<genBits, 5)
	if len(big) != 3 || big[0]&wordBigGen == 0 || big[1] != 1<<genBits || big[2] != 5 {
		t.Errorf("mapHeader(generation 1<<%d) = %x, want a header and both generations", genBits, big)
	}
	if pair := uint64(1<<31-1)<<32 | (1<<31 - 1); pair&wordMixed != 0 {
		t.Errorf("the largest pair word %x has the marker bit", pair)
	}
}

// A batch's DOUBLE amounts convert as floatNanos converts them, the slow ones remembered by their
// bits: amounts that share a slot of the cache, repeated, each keep their own value.
func TestPQRowNanos(t *testing.T) {
	var pr pqRow
	amounts := []float64{0.6533333333, 3.204, 1.2345e-6, -98.32, 0.0000012345 * 997, 123456789.123456789, 1e-10, 2.5e-10, 7}
	for i := range 200 {
		amounts = append(amounts, float64(i)*0.0000012345)
	}
	for range 3 {
		for _, f := range amounts {
			want, werr := floatNanos(f)
			got, err := pr.nanos(f)
			if got != want || (err == nil) != (werr == nil) {
				t.Fatalf("pqRow.nanos(%v) = %d, %v; want %d, %v", f, got, err, want, werr)
			}
		}
	}
	if _, err := pr.nanos(math.NaN()); err == nil {
		t.Error("pqRow.nanos(NaN) succeeded")
	}
}
