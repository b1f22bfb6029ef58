package spot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// Kinds of job event.
const (
	EventStart   = "start"   // a runner started on a machine and restored (or not) a checkpoint
	EventNotice  = "notice"  // the machine is going away (terminate) or may soon (rebalance)
	EventCrash   = "crash"   // the command exited non-zero without a notice
	EventRestart = "restart" // the command was started again after a crash
	EventSync    = "sync"    // a checkpoint sync finished (or failed)
	EventStop    = "stop"    // the command exited after a terminate notice, at the event's time (Killed: ended when its grace ran out)
	EventExit    = "exit"    // the runner finished on this machine
)

// Event is one thing that happened to a job, stored as a small JSON object of its own under
// JOB/events/<unix-nanos>-<host>.json. Each is written with one Put and never rewritten, so the
// machines a job runs on over its life never overwrite each other's records.
type Event struct {
	Job  string    `json:"job"`
	Kind string    `json:"kind"`
	Time time.Time `json:"time"`
	Run  string    `json:"run"` // one runner process: host and start time

	// Where it ran; on every event, so each stands alone.
	Host         string `json:"host,omitempty"`
	Cloud        string `json:"cloud,omitempty"`
	InstanceType string `json:"instance_type,omitempty"`
	Region       string `json:"region,omitempty"`
	Zone         string `json:"zone,omitempty"`
	ZoneID       string `json:"zone_id,omitempty"`     // AWS's availability-zone-id (use1-az1), the same zone in every account
	InstanceID   string `json:"instance_id,omitempty"` // the cloud's ID of the machine, as its bill names the resource
	Spot         bool   `json:"spot"`
	Price        string `json:"price_per_hour,omitempty"`     // what this machine costs an hour, a decimal in Currency; empty if unknown
	OnDemand     string `json:"on_demand_per_hour,omitempty"` // the same type on demand, if known
	Currency     string `json:"currency,omitempty"`

	Attempt    int    `json:"attempt,omitempty"`     // the command's start number on this machine, from 1
	ResumeFrom string `json:"resume_from,omitempty"` // start, restart: the checkpoint given to the command

	// Notices.
	Source     string     `json:"source,omitempty"`
	NoticeKind string     `json:"notice_kind,omitempty"`
	Deadline   *time.Time `json:"deadline,omitempty"`
	Detail     string     `json:"detail,omitempty"`
	// Grace is the seconds a terminate notice gave the command to save and exit before it was
	// ended, and GraceReason how they were reckoned (deadline, upload estimate, floor, limit).
	Grace       *float64 `json:"grace_s,omitempty"`
	GraceReason string   `json:"grace_reason,omitempty"`

	// Syncs.
	Reason         string     `json:"reason,omitempty"` // periodic, rebalance, notice, crash, exit
	Files          int        `json:"files,omitempty"`
	Uploaded       int        `json:"uploaded,omitempty"`
	Bytes          int64      `json:"bytes,omitempty"`
	Seconds        float64    `json:"seconds,omitempty"`
	MBps           float64    `json:"mb_per_s,omitempty"`
	Manifest       string     `json:"manifest,omitempty"`
	Checkpoint     string     `json:"checkpoint,omitempty"`      // the newest checkpoint stored so far
	CheckpointTime *time.Time `json:"checkpoint_time,omitempty"` // when the command wrote it, on the runner's clock

	// Crashes, stops and exits.
	Status   *int   `json:"status,omitempty"`    // the command's exit status; -1 if killed by a signal
	Killed   bool   `json:"killed,omitempty"`    // stop: the runner ended the command when its grace ran out
	ExitCode *int   `json:"exit_code,omitempty"` // the runner's exit code
	Error    string `json:"error,omitempty"`
}

// Prices returns the event's hourly price and on-demand price, each with false when unknown or
// unreadable.
func (ev Event) Prices() (price gpucost.Money, okPrice bool, onDemand gpucost.Money, okOnDemand bool) {
	cur := ev.Currency
	if cur == "" {
		cur = "USD"
	}
	parse := func(s string) (gpucost.Money, bool) {
		if s == "" {
			return gpucost.Money{}, false
		}
		m, err := gpucost.ParseMoney(s, cur)
		return m, err == nil
	}
	price, okPrice = parse(ev.Price)
	onDemand, okOnDemand = parse(ev.OnDemand)
	return price, okPrice, onDemand, okOnDemand
}

// EventsPrefix returns the prefix under which job's events are stored.
func EventsPrefix(job string) string { return job + "/events/" }

// eventKey returns the key of an event: the time first, so a listing is in time order, and the
// host, so two machines writing in the same nanosecond do not collide.
func eventKey(ev Event) string {
	host := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, ev.Host)
	if host == "" {
		host = "unknown"
	}
	return fmt.Sprintf("%s%019d-%s.json", EventsPrefix(ev.Job), ev.Time.UnixNano(), host)
}

// PutEvent stores ev with one Put.
func PutEvent(ctx context.Context, store gpucost.ObjectStore, ev Event) error {
	b, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("encode %s event: %w", ev.Kind, err)
	}
	if err := store.Put(ctx, eventKey(ev), bytes.NewReader(b), int64(len(b))); err != nil {
		return fmt.Errorf("record %s event: %w", ev.Kind, err)
	}
	return nil
}

// maxEvent bounds one event object: they are a few hundred bytes.
const maxEvent = 1 << 20

// ReadEvents returns job's events in time order. Events that cannot be read or parsed are
// skipped with a warning on log naming their key; skipped counts them.
func ReadEvents(ctx context.Context, store gpucost.ObjectStore, job string, log *slog.Logger) (events []Event, skipped int, err error) {
	objs, err := store.List(ctx, EventsPrefix(job))
	if err != nil {
		return nil, 0, fmt.Errorf("list events of job %s: %w", job, err)
	}
	for _, o := range objs {
		ev, err := readEvent(ctx, store, o.Key)
		if err != nil {
			if ctx.Err() != nil {
				return nil, 0, ctx.Err()
			}
			log.Warn("skipping job event", "key", o.Key, "err", err)
			skipped++
			continue
		}
		events = append(events, ev)
	}
	return events, skipped, nil
}

func readEvent(ctx context.Context, store gpucost.ObjectStore, key string) (Event, error) {
	rc, err := store.Get(ctx, key)
	if err != nil {
		return Event{}, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxEvent))
	if err != nil {
		return Event{}, fmt.Errorf("read: %w", err)
	}
	return ParseEvent(b)
}

// ParseEvent parses one stored event. It rejects objects without a job, kind or time.
func ParseEvent(b []byte) (Event, error) {
	var ev Event
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&ev); err != nil {
		return Event{}, fmt.Errorf("parse event: %w", err)
	}
	switch {
	case ev.Job == "":
		return Event{}, fmt.Errorf("parse event: no job")
	case ev.Kind == "":
		return Event{}, fmt.Errorf("parse event: no kind")
	case ev.Time.IsZero():
		return Event{}, fmt.Errorf("parse event: no time")
	}
	return ev, nil
}

// Jobs returns the names of the jobs that have events in store: the first path element of every
// key that has an events folder.
func Jobs(ctx context.Context, store gpucost.ObjectStore) ([]string, error) {
	objs, err := store.List(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	var jobs []string
	for _, o := range objs {
		dir, _ := path.Split(o.Key)
		job, ok := strings.CutSuffix(dir, "/events/")
		if !ok || strings.Contains(job, "/") {
			continue
		}
		if len(jobs) == 0 || jobs[len(jobs)-1] != job {
			jobs = append(jobs, job)
		}
	}
	return jobs, nil
}
