package main

import (
	"context"
	"fmt"

	"github.com/gpucost/gpucost/demo"
	"github.com/gpucost/gpucost/file"
)

// demoSideFiles is what writeDemoSideFiles did: the lines that say it, or its failure.
type demoSideFiles struct {
	said string
	err  error
}

// writeDemoSideFiles writes the demo's files that need nothing from the store: the serving
// pool's requests and its --serving file, and the spot jobs' events in the demo's jobs folder,
// where report spot and the interruption alert read them.
func (e *env) writeDemoSideFiles(ctx context.Context, load demo.Load, fleet []demo.Instance) demoSideFiles {
	files := e.demoFiles()
	if err := load.WriteServing(files, fleet); err != nil {
		return demoSideFiles{err: err}
	}
	store, err := file.New(files.Jobs)
	if err != nil {
		return demoSideFiles{err: fmt.Errorf("write the demo's spot jobs: %w", err)}
	}
	n, err := load.WriteSpotJobs(ctx, store)
	if err != nil {
		return demoSideFiles{err: fmt.Errorf("write the demo's spot jobs: %w", err)}
	}
	return demoSideFiles{said: fmt.Sprintf("Wrote the serving pool's requests a minute to %s and %s: gpucost recommend --db %s --serving %s\n"+
		"Wrote %d events of the demo's spot jobs to %s: gpucost report spot --store %s\n",
		files.Requests, files.Serving, e.dbPath, files.Serving, n, files.Jobs, files.Jobs)}
}
