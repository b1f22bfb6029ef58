package thirdparty

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/rle"
)

// TestLevelsDecode checks the copy's level decoder (third_party/parquet-go/GPUCOST.md, change 3)
// against a plain reading of the RLE/bit-packed hybrid: levels as parquet-go encodes them, in
// the shapes bills have (map rows of a few entries, nullable columns, constant columns), and
// hand-made runs the encoder does not write (multi-byte headers, short RLE runs).
func TestLevelsDecode(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for width := 1; width <= 8; width++ {
		maxLevel := byte(1<<width - 1)
		shapes := map[string]func(n int) []byte{
			"constant": func(n int) []byte { return bytes.Repeat([]byte{maxLevel}, n) },
			"map rows": func(n int) []byte {
				l := make([]byte, n)
				for i := range l {
					if i%(1+rng.IntN(20)) != 0 {
						l[i] = 1
					}
				}
				return l
			},
			"nullable": func(n int) []byte {
				l := make([]byte, n)
				for i := range l {
					if rng.IntN(20) != 0 {
						l[i] = maxLevel
					}
				}
				return l
			},
			"random": func(n int) []byte {
				l := make([]byte, n)
				for i := range l {
					l[i] = byte(rng.IntN(int(maxLevel) + 1))
				}
				return l
			},
		}
		for name, shape := range shapes {
			for _, n := range []int{1, 7, 8, 17, 100, 1000, 20_000} {
				levels := shape(n)
				e := &rle.Encoding{BitWidth: width}
				enc, err := e.EncodeLevels(nil, levels)
				if err != nil {
					t.Fatal(err)
				}
				got, err := e.DecodeLevels(nil, enc)
				if err != nil {
					t.Fatalf("width %d %s n=%d: DecodeLevels: %v", width, name, n, err)
				}
				want := plainLevels(t, enc, width)
				if !bytes.Equal(got, want) || !bytes.Equal(got[:min(n, len(got))], levels) {
					t.Errorf("width %d %s n=%d: DecodeLevels = %v…, want %v…", width, name, n, got[:min(len(got), 24)], levels[:min(n, 24)])
				}
			}
		}
	}
	// Runs written by hand: a two-byte header (a run of 200), short runs of each length, and a
	// bit-packed run of three groups.
	var src []byte
	src = binary.AppendUvarint(src, 200<<1)
	src = append(src, 1)
	for k := 1; k <= 40; k++ {
		src = binary.AppendUvarint(src, uint64(k)<<1)
		src = append(src, byte(k&1))
	}
	src = append(src, 3<<1|1, 0xa5, 0x0f, 0xff)
	e := &rle.Encoding{BitWidth: 1}
	got, err := e.DecodeLevels(nil, src)
	if err != nil {
		t.Fatal(err)
	}
	if want := plainLevels(t, src, 1); !bytes.Equal(got, want) {
		t.Errorf("DecodeLevels(hand-made runs) = %v, want %v", got, want)
	}
	// A truncated bit-packed run fails.
	if _, err := e.DecodeLevels(nil, []byte{3<<1 | 1, 0xa5}); err == nil {
		t.Error("DecodeLevels(truncated bit-packed run) succeeded")
	}
}

// plainLevels decodes the RLE/bit-packed hybrid one value at a time, as the format describes it.
func plainLevels(t *testing.T, src []byte, width int) []byte {
	t.Helper()
	var out []byte
	for i := 0; i < len(src); {
		h, n := binary.Uvarint(src[i:])
		if n <= 0 {
			t.Fatalf("bad run header at %d", i)
		}
		i += n
		if h&1 == 0 {
			v := byte(0)
			if width > 0 {
				v = src[i]
				i++
			}
			out = append(out, bytes.Repeat([]byte{v}, int(h>>1))...)
			continue
		}
		count := int(h>>1) * 8
		bits := src[i : i+count*width/8]
		for k := range count {
			var v byte
			for b := range width {
				bit := k*width + b
				v |= (bits[bit/8] >> (bit % 8) & 1) << b
			}
			out = append(out, v)
		}
		i += len(bits)
	}
	return out
}
