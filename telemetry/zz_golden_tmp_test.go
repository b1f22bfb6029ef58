package telemetry

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func dumpRollups(path string, rs []gpucost.Rollup) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fb := math.Float64bits
	for i := range rs {
		r := &rs[i]
		fmt.Fprintf(w, "%s %s %d %v %d %d %x %x %x %x %x %x %x %d %x %x %x %d %x %x %x %d %d %v\n",
			r.Series.GPU.UUID, r.Series.Labels.String(), r.Start.UnixNano(), r.Width, r.Samples, r.Coverage,
			fb(r.UtilSum), fb(r.UtilMax), fb(r.UtilP50), fb(r.UtilP95), fb(r.MemMaxMiB), fb(r.MemP95MiB), fb(r.MemTotalMiB),
			r.PowerSamples, fb(r.PowerSum), fb(r.PowerMax), fb(r.TempMaxC), r.ProfSamples, fb(r.SMActiveSum), fb(r.SMOccupancySum),
			fb(r.GrEngineActiveSum), r.IdleMinutes, r.IdleMask, r.UtilHist)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func TestZZGoldenDump(t *testing.T) {
	dir := os.Getenv("GOLDEN_DIR")
	if dir == "" {
		t.Skip("no GOLDEN_DIR")
	}
	type tc struct {
		name string
		b    func() *Batch
	}
	var cases []tc
	for _, iv := range []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second} {
		for _, il := range []bool{false, true} {
			iv, il := iv, il
			cases = append(cases, tc{fmt.Sprintf("fleet-%v-%v", iv, il), func() *Batch { return fleetBatch(50, 2*time.Hour, iv, il) }})
		}
	}
	for _, iv := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 7 * time.Second, 10 * time.Second, 900 * time.Millisecond} {
		for _, mode := range []string{"series", "shuffle", "poll"} {
			iv, mode := iv, mode
			cases = append(cases, tc{fmt.Sprintf("random-%v-%s", iv, mode), func() *Batch {
				rng := rand.New(rand.NewPCG(3, uint64(iv)))
				ss := randomSamples(rng, 7, 130*time.Minute, iv)
				for i := range ss {
					switch rng.IntN(30) {
					case 0:
						ss[i].Util = math.Copysign(0, -1)
					case 1:
						ss[i].MemUsedMiB = math.Copysign(0, -1)
					case 2:
						ss[i].MemUsedMiB = 0
					case 3:
						ss[i].Util = 0
					}
				}
				switch mode {
				case "shuffle":
					rng.Shuffle(len(ss), func(i, j int) { ss[i], ss[j] = ss[j], ss[i] })
				case "poll":
					slicesSortStableByTime(ss)
				}
				b := NewBatch(0)
				for _, s := range ss {
					b.Add(s)
				}
				return b
			}})
		}
	}
	for _, c := range cases {
		if err := dumpRollups(dir+"/"+c.name, Rollup(c.b(), 5)); err != nil {
			t.Fatal(err)
		}
	}
}

func slicesSortStableByTime(ss []gpucost.Sample) {
	for i := 1; i < len(ss); i++ {
		for j := i; j > 0 && ss[j].Time.Before(ss[j-1].Time); j-- {
			ss[j], ss[j-1] = ss[j-1], ss[j]
		}
	}
}
