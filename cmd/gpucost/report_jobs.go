package main

import (
	"context"
	"log/slog"

	"github.com/gpucost/gpucost/present"
	"github.com/gpucost/gpucost/spot"
	"github.com/spf13/cobra"
)

func newReportJobsCmd(e *env) *cobra.Command {
	var storeURL, job string
	cmd := &cobra.Command{
		Use:   "jobs --store URL [--job J]",
		Short: "Spot jobs run with gpucost run: wall time, lost work, checkpoint overhead, savings",
		Long: `jobs reads the events "gpucost run" stored for each job and shows, over all the machines a job
ran on: wall time (first event to last); billable time (each machine's run); productive time
(training preserved in stored checkpoints: from each start of the command, or restart from a
checkpoint, to the write time of the last checkpoint it stored; a command that finished, or saved
on the termination notice, counts whole); lost work (from that checkpoint to the interruption or
crash: the command's exit after a notice it did not save on, or the last event of a run that
vanished without an exit, such as a machine lost without notice); productive time plus lost work
is the command's running time; checkpoint
overhead (time in syncs, which overlap training, and from termination notices to exit); restarts
and interruptions; the cost at the prices the runs recorded against the same productive time on
demand, the dollars saved, and SageMaker's managed-spot figure, savings = 1 − billable / total
time.`,
		Example: `  gpucost report jobs --store s3://my-bucket/jobs
  gpucost report jobs --store file:///mnt/nfs/jobs --job llama-ft --output json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.validOutput(); err != nil {
				return err
			}
			reps, skipped, err := jobReports(cmd.Context(), e, storeURL, job)
			if err != nil {
				return err
			}
			return e.print(present.Jobs(reps, skipped))
		},
	}
	cmd.Flags().StringVar(&storeURL, "store", "", "the store gpucost run wrote to: s3://BUCKET/PREFIX, file://PATH or a directory (required)")
	cmd.Flags().StringVar(&job, "job", "", "only this job")
	cmd.MarkFlagRequired("store")
	return cmd
}

// jobReports reads the events of job, or of every job in the store, and sums each job up.
func jobReports(ctx context.Context, e *env, storeURL, job string) ([]spot.JobReport, int, error) {
	store, err := openObjectStore(ctx, e, storeURL)
	if err != nil {
		return nil, 0, err
	}
	return spot.Reports(ctx, store, storeURL, job, slog.New(slog.NewTextHandler(e.stderr, nil)))
}

// jobJSON is one job of report jobs --output json, as the tests read it back.
type jobJSON = present.JobJSON
