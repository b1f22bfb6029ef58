package main

import (
	"context"
	"fmt"

	"github.com/gpucost/gpucost/demo"
	"github.com/gpucost/gpucost/file"
)

// writeDemoSpotJobs stores the demo's spot job events in the demo's jobs folder, where report
// spot and the interruption alert read them.
func (e *env) writeDemoSpotJobs(ctx context.Context, load demo.Load) error {
	dir := e.demoFiles().Jobs
	store, err := file.New(dir)
	if err != nil {
		return err
	}
	n, err := load.WriteSpotJobs(ctx, store)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "Wrote %d events of the demo's spot jobs to %s: gpucost report spot --store %s\n", n, dir, dir)
	return nil
}
