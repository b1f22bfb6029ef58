package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/exitcode"
	"github.com/gpucost/gpucost/spot"
	"github.com/gpucost/gpucost/spot/notice"
	"github.com/spf13/cobra"
)

// runFlags are gpucost run's flags.
type runFlags struct {
	name, dir, store, noticeSignal, cloud, azureURL, instanceType, price string
	syncInterval, grace, poll, uploadFloor                               time.Duration
	maxRestarts                                                          int
	spot, spotSet                                                        bool // spotSet: --spot was given
}

// runHelp is the command's --help text.
var runHelp = `run wraps a training command so that it survives spot interruptions and crashes.

Before the command starts, the newest complete checkpoint of the job is fetched from --store
and replaces the contents of --checkpoint-dir. Every file is checked against its size and
sha256 before anything in the directory changes; a checkpoint that does not verify (a damaged or
missing object) is skipped with a warning naming its manifest, and the one before it is used.
The command gets:
  GPUCOST_CHECKPOINT_DIR   the directory to write checkpoints into (write a temporary file, then rename)
  GPUCOST_RESUME_FROM      the checkpoint to resume from (DIR/<newest entry>); empty on a fresh start
  GPUCOST_JOB              the job name
  GPUCOST_NOTICE_FILE      DIR/.gpucost-notice; on a termination notice the runner writes
                           "GPUCOST_NOTICE_DEADLINE=<RFC 3339 time>" there. A running process's
                           environment cannot change, so the deadline comes in this file.
While it runs, the directory is synced to the store every --sync-interval: only new or changed
files, with checksums, and the manifest written last so "latest" never names a partial checkpoint.

On a termination notice (AWS spot/instance-action, GCP preempted, Azure Preempt, or SIGTERM or
SIGINT to the runner, which give --grace) the command's process group gets --notice-signal and
a grace to save and exit: the time to the deadline less the estimated upload time (what is
pending and a checkpoint the size of the last one, over the measured bandwidth; --upload-floor
before any upload is measured), at most --grace, and never less than half the time to the
deadline up to 5 s. The runner ends the command if it has not exited by then, uploads,
acknowledges an Azure event and exits 75; the notice event records the grace and why, a stop
event when the command exited. If the checkpoint cannot fit the window the log says so with
the numbers. An AWS
rebalance recommendation starts a sync at once. A command that exits non-zero without a notice is
restarted from the last checkpoint after 1 s, 2 s, 4 s … (at most 1 min), up to --max-restarts.

The machine's instance type, region, zone and whether it is spot are read from the cloud's
metadata service (AWS instance-type, placement and instance-life-cycle; GCP machine-type, zone
and scheduling; Azure compute vmSize, location, zone and priority); --instance-type and --spot
win over them, and a service that cannot say leaves them to the flags with a warning. Unless
--price is given, the machine is priced at the catalog's price for its type in its region
(spot in its own zone first), or the median over regions where the region is unknown.

Every start, notice, crash, restart, sync and exit is stored as a JSON event under
JOB/events/ in the store; "gpucost report jobs" sums them up.

Exit codes:
  0   the command finished and its final checkpoint is stored
  1   an internal failure, or the command could not be started
  2   invalid flags
  4   the store cannot be reached at start (the command is not started)
  65  the job has checkpoints but none verifies; the command is not started and the directory
      is left as it was (delete the damaged manifests named in the log to start fresh)
  70  the command kept failing: it exited non-zero more than --max-restarts times
  74  the final checkpoint upload failed; the previous checkpoint stays latest
  75  interrupted by a termination notice; the checkpoint is stored: resume on another machine`

func newRunCmd(e *env) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run --checkpoint-dir DIR --store URL [flags] -- CMD ARGS...",
		Short: "Run a training command on spot: checkpoint sync, termination notices, restarts",
		Long:  runHelp,
		Example: `  gpucost run --name llama-ft --checkpoint-dir /scratch/ckpt --store s3://my-bucket/jobs -- python train.py
  gpucost run --checkpoint-dir ckpt --store file:///mnt/nfs/jobs --cloud aws --poll 1s -- ./train.sh
  gpucost run --checkpoint-dir ckpt --store s3://my-bucket/jobs --instance-type g5.xlarge --max-restarts 3 -- python train.py`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.spotSet = cmd.Flags().Changed("spot")
			if err := f.checkFlags(); err != nil {
				return err
			}
			return runError(e, runJob(cmd.Context(), e, f, args))
		},
	}
	fl := cmd.Flags()
	fl.SetInterspersed(false) // the command's own flags are its own, with or without "--"
	fl.StringVar(&f.name, "name", "", "job name: letters, digits, '.', '_', '-' (default: the checkpoint directory's name)")
	fl.StringVar(&f.dir, "checkpoint-dir", "", "directory the command writes checkpoints into (required)")
	fl.StringVar(&f.store, "store", "", "where checkpoints and events go: s3://BUCKET/PREFIX, file://PATH or a directory (required)")
	fl.DurationVar(&f.syncInterval, "sync-interval", spot.DefaultSyncInterval, "how often to sync the checkpoint directory")
	fl.IntVar(&f.maxRestarts, "max-restarts", 10, "restarts after crashes before giving up (exit 70)")
	fl.StringVar(&f.noticeSignal, "notice-signal", "SIGTERM", "signal sent to the command on a termination notice: SIGTERM, SIGINT, SIGUSR1, SIGUSR2 or SIGHUP")
	fl.DurationVar(&f.grace, "grace", notice.DefaultGrace, "deadline after a SIGTERM or SIGINT to the runner, and the most time the command gets to save after any termination notice")
	fl.StringVar(&f.cloud, "cloud", "auto", "where to watch for notices: auto, aws, gcp, azure or none")
	fl.DurationVar(&f.poll, "poll", notice.DefaultPoll, "how often to ask the metadata service (1s for the fastest reaction)")
	fl.StringVar(&f.azureURL, "azure-metadata-url", notice.DefaultAzureURL, "Azure Scheduled Events URL")
	fl.StringVar(&f.instanceType, "instance-type", "", "instance type, for the catalog price in the job's events (default: what the cloud's metadata service says)")
	fl.StringVar(&f.price, "price", "", "what this machine costs per hour in USD (default: the catalog price of the instance type in its region)")
	fl.BoolVar(&f.spot, "spot", true, "the machine is spot or preemptible, priced at the catalog spot price (default: what the metadata service says, else true)")
	fl.DurationVar(&f.uploadFloor, "upload-floor", spot.DefaultUploadFloor, "upload time assumed in a notice window before the bandwidth is measured")
	return cmd
}

// runJob builds the runner from the flags and runs it.
func runJob(ctx context.Context, e *env, f runFlags, args []string) error {
	// SIGTERM and SIGINT are notices with --grace, handled by the runner: the job must not stop
	// when the command line's context does.
	ctx = context.WithoutCancel(ctx)
	if f.dir == "" || f.store == "" {
		return usageError{fmt.Errorf("gpucost run needs --checkpoint-dir and --store")}
	}
	r, err := spot.NewJob(ctx, spot.JobOptions{Name: f.name, Dir: f.dir, Command: args, Stdout: e.stdout, Stderr: e.stderr,
		OpenStore:    func(ctx context.Context) (gpucost.ObjectStore, error) { return openObjectStore(ctx, e, f.store) },
		NoticeSignal: f.noticeSignal, Cloud: f.cloud,
		// The metadata endpoints come from the SDKs' environment overrides and --azure-metadata-url.
		Probe:        notice.Probe{AWS: e.getenv("AWS_EC2_METADATA_SERVICE_ENDPOINT"), GCPHost: e.getenv("GCE_METADATA_HOST"), AzureURL: f.azureURL},
		InstanceType: f.instanceType, Price: f.price, Spot: f.spot, SpotGiven: f.spotSet,
		Offers: func(ctx context.Context) ([]gpucost.Offer, error) {
			cat, err := e.loadCatalog(ctx)
			if err != nil {
				return nil, err
			}
			return cat.Offers(), nil
		},
		SyncInterval: f.syncInterval, Grace: f.grace, Poll: f.poll, UploadFloor: f.uploadFloor, MaxRestarts: f.maxRestarts, Now: e.now})
	if err != nil {
		return err
	}
	res, err := r.Run(ctx)
	if res.ExitCode == spot.ExitDone {
		return err
	}
	if res.ExitCode == 1 && err != nil {
		return err
	}
	if err != nil {
		fmt.Fprintln(e.stderr, "gpucost:", err)
	}
	return exitError{res.ExitCode}
}

// runError keeps gpucost run to the exit codes its --help lists: the runner's own, bad input
// (2) and an unreachable store (4) keep theirs; every other failure, such as a catalog that
// cannot be read, is 1.
func runError(e *env, err error) error {
	if code := exitcode.For(err); exitcode.Quiet(err) || code == exitInvalid || code == exitUnavailable {
		return err
	}
	fmt.Fprintln(e.stderr, "gpucost:", err)
	return exitError{exitFailure}
}
