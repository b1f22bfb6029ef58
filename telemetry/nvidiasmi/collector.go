package nvidiasmi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/workload"
)

// Collector runs nvidia-smi for each sample.
type Collector struct {
	Path     string // the nvidia-smi binary; "" looks for nvidia-smi in PATH
	Host     string // the host the GPUs are on
	ProcRoot string // where to read processes' cgroup and environ; "" means /proc
	// Run runs nvidia-smi and returns its standard output; nil runs it with os/exec. An error
	// carries the exit status and what nvidia-smi wrote to standard error.
	Run func(ctx context.Context, path string, args ...string) ([]byte, error)
	Now func() time.Time
	// OnStats, if set, is called after each Collect with what it skipped and which GPUs
	// vanished, so that they can be logged.
	OnStats func(Stats)
	// Loop, if not zero, keeps one nvidia-smi running that prints every GPU's row every Loop
	// (--loop-ms), and Collect takes the latest rows from it instead of starting nvidia-smi:
	// nvidia-smi spends tens of milliseconds of CPU starting up (it initialises NVML), which at
	// a 1 s interval is several percent of a core. Close stops it. Set Loop to the interval.
	Loop time.Duration
	// AppsEvery, if not zero, asks nvidia-smi for the processes on the GPUs at most this often
	// and attributes the GPUs to the workloads found last in between; processes come and go
	// slowly compared with utilisation.
	AppsEvery time.Duration

	mu       sync.Mutex
	last     gpucost.GPUsSeen // the GPUs of the last Collect
	loop     *loop
	labels   map[string]gpucost.Labels // the workloads found last, by GPU UUID
	labelsAt time.Time                 // when
}

var _ gpucost.Collector = (*Collector)(nil)

// Source names the Collector's output in skips.
const Source = "nvidia-smi"

// Collect runs nvidia-smi --query-gpu and --query-compute-apps and returns one sample per GPU,
// labelled with the pods, containers and jobs of the processes on it. A GPU that reports an
// error is left out and counted (see OnStats); one that was there last time and is missing now
// is reported in Stats.Vanished.
func (c *Collector) Collect(ctx context.Context) ([]gpucost.Sample, error) {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	at := now()
	out, runErr := c.gpuRows(ctx)
	if runErr != nil && !hasRows(out) {
		return nil, runErr
	}
	var st Stats
	if runErr != nil {
		st.skip(Source, 0, "", runErr.Error())
	}
	samples := c.parseGPUs(out, at, &st)
	if err := c.attribute(ctx, samples, at); err != nil {
		st.skip(Source, 0, "", "no attribution to pods and jobs: "+err.Error())
	}
	c.noteVanished(samples, &st)
	st.Samples = len(samples)
	if c.OnStats != nil {
		c.OnStats(st)
	}
	return samples, nil
}

// parseGPUs turns --query-gpu output into samples taken at the time at.
func (c *Collector) parseGPUs(out []byte, at time.Time, st *Stats) []gpucost.Sample {
	samples := make([]gpucost.Sample, 0, 8)
	num := 0
	for line := range strings.SplitSeq(string(out), "\n") {
		num++
		text := strings.TrimRight(line, "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		st.Lines++
		if msg, ok := driverMessage(text); ok {
			st.skip(Source, num, "", "nvidia-smi: "+msg)
			continue
		}
		r, why := defaultLayout.parse(strings.Split(text, ","), gpucost.GPU{Host: c.Host, Index: -1}, time.UTC)
		if why != "" {
			st.skip(Source, num, "", "line "+why+"; left out")
			continue
		}
		for _, p := range r.problems {
			if p.field != fieldName(colTimestamp) { // the sample takes the time of the Collect
				st.skip(Source, num, p.field, p.reason+"; reading left out")
			}
		}
		r.s.Time = at
		samples = append(samples, r.s)
	}
	return samples
}

// attribute labels each sample with the workloads of the processes on its GPU.
func (c *Collector) attribute(ctx context.Context, samples []gpucost.Sample, at time.Time) error {
	labels, err := c.workloads(ctx, at)
	if err != nil {
		return err
	}
	for i := range samples {
		if l := labels[samples[i].GPU.UUID]; l != nil {
			samples[i].Labels = maps.Clone(l)
		}
	}
	return nil
}

// gpuRows returns --query-gpu output: the latest round of the looping nvidia-smi when Loop is
// set and it has one, or else the output of a nvidia-smi run now. A looping nvidia-smi that has
// exited is started again.
func (c *Collector) gpuRows(ctx context.Context) ([]byte, error) {
	if c.Loop > 0 {
		c.mu.Lock()
		l := c.loop
		if l == nil || !l.running() {
			c.loop = nil
			if path, err := c.binary(); err == nil {
				c.loop, _ = startLoop(path, c.Loop) // on failure, the run below says why
			}
		}
		c.mu.Unlock()
		if l != nil {
			if out, ok := l.rows(); ok {
				return out, nil
			}
		}
	}
	return c.run(ctx, "--query-gpu="+QueryGPU, "--format=csv,noheader,nounits")
}

// workloads returns the labels of the workloads on each GPU, by UUID, from the processes
// nvidia-smi lists and their cgroups and environments; it asks at most every AppsEvery.
func (c *Collector) workloads(ctx context.Context, at time.Time) (map[string]gpucost.Labels, error) {
	c.mu.Lock()
	labels, labelsAt := c.labels, c.labelsAt
	c.mu.Unlock()
	if c.AppsEvery > 0 && labels != nil && at.Sub(labelsAt) < c.AppsEvery {
		return labels, nil
	}
	pids, err := c.PIDs(ctx)
	if err != nil {
		return nil, err
	}
	labels = make(map[string]gpucost.Labels, len(pids))
	for uuid, list := range pids {
		ws := make([]workload.Workload, 0, len(list))
		for _, pid := range list {
			ws = append(ws, workload.Of(c.ProcRoot, pid))
		}
		labels[uuid] = workload.Labels(ws)
	}
	c.mu.Lock()
	c.labels, c.labelsAt = labels, at
	c.mu.Unlock()
	return labels, nil
}

// Close stops the looping nvidia-smi, if one runs.
func (c *Collector) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.loop != nil {
		c.loop.stop()
		c.loop = nil
	}
	return nil
}

// PIDs returns the processes using each GPU, by GPU UUID, from nvidia-smi --query-compute-apps.
// With MIG, nvidia-smi names the parent GPU.
func (c *Collector) PIDs(ctx context.Context) (map[string][]int, error) {
	out, err := c.run(ctx, "--query-compute-apps="+QueryApps, "--format=csv,noheader,nounits")
	if err != nil {
		return nil, err
	}
	pids := map[string][]int{}
	for line := range strings.SplitSeq(string(out), "\n") {
		fields := strings.Split(line, ",")
		if len(fields) < 2 {
			continue // blank, or "No running processes found"
		}
		uuid := strings.TrimSpace(fields[0])
		pid, err := strconv.Atoi(strings.TrimSpace(fields[1]))
		if err != nil || pid <= 0 || !strings.HasPrefix(uuid, "GPU-") && !strings.HasPrefix(uuid, "MIG-") {
			continue
		}
		pids[uuid] = append(pids[uuid], pid)
	}
	return pids, nil
}

// noteVanished reports the GPUs of the last Collect that this one lacks.
func (c *Collector) noteVanished(samples []gpucost.Sample, st *Stats) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := gpucost.SeenIn(samples)
	for _, uuid := range c.last.Missing(now) {
		st.Vanished = append(st.Vanished, uuid)
		st.skip(Source, 0, uuid, fmt.Sprintf("GPU %d (%s) was in the last sample and is missing now: lost, fallen off the bus or removed?", c.last[uuid], uuid))
	}
	c.last = now
}

// hasRows reports whether output holds at least one line that looks like a GPU's row.
func hasRows(out []byte) bool {
	for line := range bytes.SplitSeq(out, []byte("\n")) {
		if bytes.Count(line, []byte(",")) >= len(defaultLayout)-1 {
			return true
		}
	}
	return false
}

// run runs nvidia-smi with args, turning its failures into errors that say what to do.
func (c *Collector) run(ctx context.Context, args ...string) ([]byte, error) {
	path := c.Path
	if path == "" {
		path = "nvidia-smi"
	}
	run := c.Run
	if run == nil {
		resolved, err := c.binary()
		if err != nil {
			return nil, err
		}
		path, run = resolved, execRun
	}
	out, err := run(ctx, path, args...)
	if err == nil {
		return out, nil
	}
	msg := strings.TrimSpace(string(out) + " " + err.Error())
	switch {
	case strings.Contains(msg, "No devices were found"):
		return out, gpucost.Errorf(gpucost.ENotFound, "nvidia-smi found no GPUs: %w", err)
	case strings.Contains(msg, "NVIDIA-SMI has failed"), strings.Contains(msg, "Failed to initialize NVML"):
		return out, gpucost.Errorf(gpucost.EUnavailable, "nvidia-smi cannot reach the NVIDIA driver (is it loaded? does nvidia-smi work in a shell?): %w", err)
	case errors.Is(err, exec.ErrNotFound):
		return out, gpucost.Errorf(gpucost.EUnavailable, "nvidia-smi not found (%s): is the NVIDIA driver installed? %w", path, err)
	}
	return out, gpucost.Errorf(gpucost.EUnavailable, "nvidia-smi %s: %w", args[0], err)
}

// binary returns the path of nvidia-smi.
func (c *Collector) binary() (string, error) {
	path := c.Path
	if path == "" {
		path = "nvidia-smi"
	}
	resolved, err := exec.LookPath(path)
	if err != nil {
		return "", gpucost.Errorf(gpucost.EUnavailable, "nvidia-smi not found (%s): is the NVIDIA driver installed? %w", path, err)
	}
	return resolved, nil
}

// execRun runs the binary and returns its standard output; a failure carries standard error.
func execRun(ctx context.Context, path string, args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return stdout.Bytes(), fmt.Errorf("%w: %s", err, msg)
		}
		return stdout.Bytes(), err
	}
	return stdout.Bytes(), nil
}
