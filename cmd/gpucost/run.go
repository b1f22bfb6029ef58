package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/spot"
	"github.com/gpucost/gpucost/spot/checkpoint"
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

func newRunCmd(e *env) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run --checkpoint-dir DIR --store URL [flags] -- CMD ARGS...",
		Short: "Run a training command on spot: checkpoint sync, termination notices, restarts",
		Long: `run wraps a training command so that it survives spot interruptions and crashes.

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
SIGINT to the runner, which give --grace) the command's process group gets --notice-signal; the
runner waits for it to save and exit until the deadline less the estimated upload time (pending
bytes over the measured bandwidth), ends it if it has not, uploads, acknowledges an Azure event
and exits 75. If the checkpoint cannot fit the window the log says so with the numbers. An AWS
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
  75  interrupted by a termination notice; the checkpoint is stored: resume on another machine`,
		Example: `  gpucost run --name llama-ft --checkpoint-dir /scratch/ckpt --store s3://my-bucket/jobs -- python train.py
  gpucost run --checkpoint-dir ckpt --store file:///mnt/nfs/jobs --cloud aws --poll 1s -- ./train.sh
  gpucost run --checkpoint-dir ckpt --store s3://b/jobs --instance-type g5.xlarge --max-restarts 3 -- python train.py`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.spotSet = cmd.Flags().Changed("spot")
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
	fl.DurationVar(&f.grace, "grace", notice.DefaultGrace, "deadline after a SIGTERM or SIGINT to the runner")
	fl.StringVar(&f.cloud, "cloud", "auto", "where to watch for notices: auto, aws, gcp, azure or none")
	fl.DurationVar(&f.poll, "poll", notice.DefaultPoll, "how often to ask the metadata service (1s for the fastest reaction)")
	fl.StringVar(&f.azureURL, "azure-metadata-url", notice.DefaultAzureURL, "Azure Scheduled Events URL")
	fl.StringVar(&f.instanceType, "instance-type", "", "instance type, for the catalog price in the job's events (default: what the cloud's metadata service says)")
	fl.StringVar(&f.price, "price", "", "what this machine costs per hour in USD (default: the catalog price of the instance type in its region)")
	fl.BoolVar(&f.spot, "spot", true, "the machine is spot or preemptible, priced at the catalog spot price (default: what the metadata service says, else true)")
	fl.DurationVar(&f.uploadFloor, "upload-floor", spot.DefaultUploadFloor, "upload time assumed in a notice window before the bandwidth is measured")
	return cmd
}

// jobName is what a job may be called: one path element of the store.
var jobName = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*$`)

// runJob builds the runner from the flags and runs it.
func runJob(ctx context.Context, e *env, f runFlags, args []string) error {
	// SIGTERM and SIGINT are notices with --grace, handled by the runner: the job must not stop
	// when the command line's context does.
	ctx = context.WithoutCancel(ctx)
	if f.dir == "" || f.store == "" {
		return usageError{fmt.Errorf("gpucost run needs --checkpoint-dir and --store")}
	}
	if f.name == "" {
		f.name = filepath.Base(filepath.Clean(f.dir))
	}
	if !jobName.MatchString(f.name) {
		return gpucost.Errorf(gpucost.EInvalid, "--name %q: use letters, digits, '.', '_' and '-'", f.name)
	}
	sig, err := parseSignal(f.noticeSignal)
	if err != nil {
		return err
	}
	stderr := &lockedWriter{w: e.stderr} // the command's stderr and the runner's log share it
	log := slog.New(slog.NewTextHandler(stderr, nil)).With("job", f.name)
	store, err := openObjectStore(ctx, e, f.store)
	if err != nil {
		return err
	}
	watchers, cloud, err := runWatchers(ctx, e, f, log)
	if err != nil {
		return err
	}
	machine, err := runMachine(ctx, e, f, cloud, log)
	if err != nil {
		return err
	}
	r := &spot.Runner{
		Job: f.name, Dir: f.dir, Command: args, Stdout: e.stdout, Stderr: stderr,
		Store: store, Watchers: watchers, Machine: machine,
		Syncer:       &checkpoint.Syncer{Store: store, Job: f.name, Dir: f.dir, Log: log, Now: e.now},
		SyncInterval: f.syncInterval, MaxRestarts: f.maxRestarts, NoticeSignal: sig,
		UploadFloor: f.uploadFloor, Now: e.now, Log: log,
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
	var ee exitError
	switch {
	case err == nil || errors.As(err, &ee) || isUsageError(err):
		return err
	case gpucost.ErrorCode(err) == gpucost.EInvalid || gpucost.ErrorCode(err) == gpucost.EUnavailable:
		return err
	}
	fmt.Fprintln(e.stderr, "gpucost:", err)
	return exitError{exitFailure}
}

// lockedWriter serialises writes from the runner's log and the command's output copier.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// signals are the signals --notice-signal accepts.
var signals = map[string]syscall.Signal{
	"SIGTERM": syscall.SIGTERM, "SIGINT": syscall.SIGINT, "SIGUSR1": syscall.SIGUSR1,
	"SIGUSR2": syscall.SIGUSR2, "SIGHUP": syscall.SIGHUP,
}

func parseSignal(s string) (os.Signal, error) {
	name := strings.ToUpper(s)
	if !strings.HasPrefix(name, "SIG") {
		name = "SIG" + name
	}
	sig, ok := signals[name]
	if !ok {
		names := make([]string, 0, len(signals))
		for n := range signals {
			names = append(names, n)
		}
		slices.Sort(names)
		return nil, gpucost.Errorf(gpucost.EInvalid, "--notice-signal %q: use one of %s", s, strings.Join(names, ", "))
	}
	return sig, nil
}

// runWatchers returns the notice watchers for --cloud (detected when auto) and the cloud's name.
// SIGTERM and SIGINT to the runner are always watched.
func runWatchers(ctx context.Context, e *env, f runFlags, log *slog.Logger) ([]notice.Watcher, string, error) {
	probe := runProbe(e, f)
	awsEndpoint, gcpHost := probe.AWS, probe.GCPHost
	cloud := f.cloud
	if cloud == "auto" {
		cloud = notice.Detect(ctx, probe)
		log.Info("cloud detected", "cloud", cloud)
	}
	ws := []notice.Watcher{&notice.Signal{Signals: []os.Signal{syscall.SIGTERM, syscall.SIGINT}, Grace: f.grace, Now: e.now}}
	switch cloud {
	case notice.CloudAWS:
		ws = append(ws, &notice.AWS{Endpoint: awsEndpoint, Poll: f.poll, Now: e.now, Log: log})
	case notice.CloudGCP:
		ws = append(ws, &notice.GCP{Host: gcpHost, Poll: f.poll, Now: e.now, Log: log})
	case notice.CloudAzure:
		ws = append(ws, &notice.Azure{URL: f.azureURL, Poll: f.poll, Now: e.now, Log: log})
	case notice.CloudNone:
	default:
		return nil, "", gpucost.Errorf(gpucost.EInvalid, "--cloud %q: use auto, aws, gcp, azure or none", f.cloud)
	}
	return ws, cloud, nil
}

// runProbe names the metadata endpoints, from the SDKs' environment overrides and
// --azure-metadata-url.
func runProbe(e *env, f runFlags) notice.Probe {
	return notice.Probe{AWS: e.getenv("AWS_EC2_METADATA_SERVICE_ENDPOINT"), GCPHost: e.getenv("GCE_METADATA_HOST"), AzureURL: f.azureURL}
}

// runMachine describes this machine for the job's events: its host name; its instance type,
// region, zone and whether it is spot from the cloud's metadata service, where --instance-type
// and --spot, when given, win; and its hourly price from --price or the catalog. A metadata
// service that cannot say is a warning, never a failure.
func runMachine(ctx context.Context, e *env, f runFlags, cloud string, log *slog.Logger) (spot.Machine, error) {
	host, _ := os.Hostname()
	m := spot.Machine{Host: host, Cloud: cloud, InstanceType: f.instanceType, Spot: f.spot, Source: "flags"}
	var d notice.Machine
	if cloud != notice.CloudNone {
		var err error
		if d, err = notice.Describe(ctx, cloud, runProbe(e, f)); err != nil {
			log.Warn("the metadata service did not describe the whole machine; --instance-type and --spot fill in", "err", err)
		}
		m.Region, m.Zone = d.Region, d.Zone
		if m.InstanceType == "" {
			m.InstanceType = d.InstanceType
		}
		if !f.spotSet && d.KnowsSpot {
			m.Spot = d.Spot
		}
		m.Source = machineSource(cloud, d, f)
		log.Info("machine", "instance_type", m.InstanceType, "region", m.Region, "zone", m.Zone, "spot", m.Spot, "from", m.Source)
	}
	if f.price != "" {
		p, err := gpucost.ParseMoney(f.price, "USD")
		if err != nil || p.Nanos < 0 {
			return m, gpucost.Errorf(gpucost.EInvalid, "--price %q: give dollars per hour, such as 1.212", f.price)
		}
		m.Price, m.HasPrice = p, true
	}
	if m.InstanceType == "" {
		return m, nil
	}
	cat, err := e.loadCatalog(ctx)
	if err != nil {
		return m, err
	}
	priceMachine(&m, cat.Offers(), d.ZoneID)
	if !m.HasPrice {
		log.Warn("no catalog price for this machine; give --price to price it", "instance_type", m.InstanceType, "region", m.Region)
	}
	return m, nil
}

// machineSource says where the machine's description came from, for the start event.
func machineSource(cloud string, d notice.Machine, f runFlags) string {
	var parts []string
	if d.InstanceType != "" || d.KnowsSpot || d.Region != "" {
		parts = append(parts, cloud+" metadata")
		if d.Lifecycle != "" {
			parts[0] += " (" + d.Lifecycle + ")"
		}
	}
	if f.instanceType != "" {
		parts = append(parts, "--instance-type")
	}
	if f.spotSet || !d.KnowsSpot {
		parts = append(parts, "--spot")
	}
	return strings.Join(parts, ", ")
}

// priceMachine sets m's on-demand price, and its price unless --price gave one, from the
// catalog's offers of its instance type: those of its cloud and region when the catalog has
// them (a spot price from its own zone first), else the median over every region.
func priceMachine(m *spot.Machine, offers []gpucost.Offer, zoneID string) {
	var match []gpucost.Offer
	for _, o := range offers {
		if strings.EqualFold(o.InstanceType, m.InstanceType) {
			match = append(match, o)
		}
	}
	narrow := func(keep func(gpucost.Offer) bool) {
		var in []gpucost.Offer
		for _, o := range match {
			if keep(o) {
				in = append(in, o)
			}
		}
		if len(in) > 0 {
			match = in
		}
	}
	if m.Cloud != notice.CloudNone && m.Cloud != "" {
		narrow(func(o gpucost.Offer) bool { return o.Provider == m.Cloud })
	}
	if m.Region != "" {
		narrow(func(o gpucost.Offer) bool { return o.Region == m.Region })
	}
	var onDemand, spotPrices []gpucost.Money
	for _, o := range match {
		if o.HasOnDemand {
			onDemand = append(onDemand, o.OnDemand)
		}
	}
	if m.Zone != "" || zoneID != "" {
		narrow(func(o gpucost.Offer) bool { return o.HasSpot && o.Zone != "" && (o.Zone == m.Zone || o.Zone == zoneID) })
	}
	for _, o := range match {
		if o.HasSpot {
			spotPrices = append(spotPrices, o.SpotPrice)
		}
	}
	if p, ok := medianMoney(onDemand); ok {
		m.OnDemand, m.HasOnDemand = p, true
	}
	if !m.HasPrice {
		src := onDemand
		if m.Spot {
			src = spotPrices
		}
		m.Price, m.HasPrice = medianMoney(src)
	}
}

// medianMoney returns the median of prices across regions (the lower middle one for an even
// count): exact, and not swayed by one odd region.
func medianMoney(prices []gpucost.Money) (gpucost.Money, bool) {
	if len(prices) == 0 {
		return gpucost.Money{}, false
	}
	slices.SortFunc(prices, func(a, b gpucost.Money) int { return cmp.Compare(a.Nanos, b.Nanos) })
	return prices[(len(prices)-1)/2], true
}
