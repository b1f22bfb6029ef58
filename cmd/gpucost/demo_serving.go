package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gpucost/gpucost/demo"
)

// The demo serving pool's requests follow its utilisation: each of its GPUs is one replica
// serving one request at a time in demoServiceTime, so requests a second = Σ utilisation ÷
// demoServiceTime — 40 A100s at 35% in the afternoon serve 350 a second.
const (
	demoServiceTime = 40 * time.Millisecond // a chat model's mean time per request on one A100
	demoServingSLO  = "p99=200ms"
	demoServingNS   = "serving"
)

// demoServingPaths are where the demo writes its serving pool's request counts and the
// --serving file naming them: beside a SQLite store, in the temporary folder for PostgreSQL.
func (e *env) demoServingPaths() (requests, pools string) {
	return e.demoFile("-requests.csv"), e.demoFile("-serving.yaml")
}

// writeDemoServing writes the serving pool's requests a second for each minute of [from, end)
// as a timestamp,rate CSV, and a --serving file for gpucost recommend that names it.
func (e *env) writeDemoServing(fleet []demo.Instance, from, end time.Time) error {
	reqPath, poolsPath := e.demoServingPaths()
	f, err := os.Create(reqPath)
	if err != nil {
		return fmt.Errorf("write the demo serving requests: %w", err)
	}
	defer f.Close()
	if err := demo.ServingRates(f, fleet, demoServingNS, demoServiceTime, from, end); err != nil {
		return fmt.Errorf("write the demo serving requests %s: %w", reqPath, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write the demo serving requests %s: %w", reqPath, err)
	}
	yaml := fmt.Sprintf(`# The demo's serving pool for gpucost recommend --serving: its requests follow its GPUs'
# utilisation at %v a request on one A100 per replica.
pools:
  - namespace: %s
    slo: %s
    service_time: %v
    concurrency: 1
    gpus_per_replica: 1
    requests: %s
`, demoServiceTime, demoServingNS, demoServingSLO, demoServiceTime, filepath.Base(reqPath))
	if err := os.WriteFile(poolsPath, []byte(yaml), 0o644); err != nil {
		return fmt.Errorf("write the demo serving pools: %w", err)
	}
	fmt.Fprintf(e.stderr, "Wrote the serving pool's requests a minute to %s and %s: gpucost recommend --db %s --serving %s\n",
		reqPath, poolsPath, e.dbPath, poolsPath)
	return nil
}

// servingFile is the demo's --serving file, for the hints the demo prints.
func servingFile(e *env) string {
	_, pools := e.demoServingPaths()
	return pools
}
