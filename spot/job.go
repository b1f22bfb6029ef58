package spot

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/spot/checkpoint"
	"github.com/gpucost/gpucost/spot/notice"
)

// JobOptions are a job as gpucost run is given it.
type JobOptions struct {
	Name, Dir      string   // the job's name (JobName: the directory's when empty) and checkpoint directory
	Command        []string // the command and its arguments
	Stdout, Stderr io.Writer
	// OpenStore opens where checkpoints and events go, once the name and signal are checked.
	OpenStore    func(context.Context) (gpucost.ObjectStore, error)
	NoticeSignal string       // ParseSignal's: SIGTERM, SIGINT, SIGUSR1, SIGUSR2 or SIGHUP
	Cloud        string       // where notices come from: auto, aws, gcp, azure or none
	Probe        notice.Probe // the metadata endpoints
	// InstanceType, Spot and Price win over what the metadata service says (DescribeMachine);
	// SpotGiven says Spot was given. Offers price the machine where Price is empty.
	InstanceType, Price string
	Spot, SpotGiven     bool
	Offers              func(context.Context) ([]gpucost.Offer, error)

	SyncInterval, Grace, Poll, UploadFloor time.Duration
	MaxRestarts                            int
	Now                                    func() time.Time
}

// NewJob returns the Runner of the job o describes: its name and notice signal checked, its
// store opened, the notice watchers of its cloud, and the machine it runs on. The command's
// stderr and the runner's log, both o.Stderr, take turns writing.
func NewJob(ctx context.Context, o JobOptions) (*Runner, error) {
	name, err := JobName(o.Name, o.Dir)
	if err != nil {
		return nil, err
	}
	sig, err := ParseSignal(o.NoticeSignal)
	if err != nil {
		return nil, err
	}
	stderr := &lockedWriter{w: o.Stderr}
	log := slog.New(slog.NewTextHandler(stderr, nil)).With("job", name)
	store, err := o.OpenStore(ctx)
	if err != nil {
		return nil, err
	}
	watchers, cloud, err := notice.Watchers(ctx, notice.WatchOptions{Cloud: o.Cloud, Probe: o.Probe, Grace: o.Grace, Poll: o.Poll, Now: o.Now, Log: log})
	if err != nil {
		return nil, err
	}
	machine, err := DescribeMachine(ctx, MachineOptions{Cloud: cloud, Probe: o.Probe, InstanceType: o.InstanceType,
		Spot: o.Spot, SpotGiven: o.SpotGiven, Price: o.Price, Log: log, Offers: o.Offers})
	if err != nil {
		return nil, err
	}
	return &Runner{
		Job: name, Dir: o.Dir, Command: o.Command, Stdout: o.Stdout, Stderr: stderr,
		Store: store, Watchers: watchers, Machine: machine,
		Syncer:       &checkpoint.Syncer{Store: store, Job: name, Dir: o.Dir, Log: log, Now: o.Now},
		SyncInterval: o.SyncInterval, MaxRestarts: o.MaxRestarts, NoticeSignal: sig,
		UploadFloor: o.UploadFloor, Grace: o.Grace, Now: o.Now, Log: log,
	}, nil
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
