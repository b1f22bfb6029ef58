package demo

import (
	"bufio"
	"io"
	"math/rand/v2"
	"strconv"
	"time"
)

// ServingRates writes the requests a second of namespace's machines, one timestamp,rate row a
// minute of [from, end), as CSV. Their requests follow their utilisation, drawn from their
// workload as the telemetry is: each GPU is one replica serving one request at a time in
// serviceTime, so requests a second = Σ utilisation ÷ serviceTime.
func ServingRates(w io.Writer, fleet []Instance, namespace string, serviceTime time.Duration, from, end time.Time) error {
	var pool []Instance
	for _, in := range fleet {
		if in.Namespace == namespace {
			pool = append(pool, in)
		}
	}
	rng := rand.New(rand.NewPCG(7, 42))
	bw := bufio.NewWriter(w)
	bw.WriteString("timestamp,rate\n")
	for t := from; t.Before(end); t = t.Add(time.Minute) {
		busy := 0.0 // GPUs' worth of work
		for _, in := range pool {
			for g := range in.GPUs {
				if util, _, ok := in.Workload(g, t, rng); ok {
					busy += util / 100
				}
			}
		}
		bw.WriteString(t.Format(time.RFC3339))
		bw.WriteByte(',')
		bw.WriteString(strconv.FormatFloat(busy/serviceTime.Seconds(), 'f', 2, 64))
		if _, err := bw.WriteString("\n"); err != nil {
			return err
		}
	}
	return bw.Flush()
}
