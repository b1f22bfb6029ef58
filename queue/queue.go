// Package queue is a work queue for batch jobs on spot machines, kept in NATS JetStream: items
// are pushed once, workers run a command over batches of them, and every item ends with exactly
// one result or in the dead-letter stream with its error, however often workers are killed.
//
// Per queue Q there are three streams:
//
//	GPUCOST_Q_<Q>       subject gpucost.q.Q.items, work-queue retention: items not yet acked
//	GPUCOST_QDONE_<Q>   subjects gpucost.q.Q.done.<token>, one message per finished item (done,
//	                    rate), found by its item's token (doneToken); gpucost.q.Q.done holds
//	                    those of workers from before results segments (results.go)
//	GPUCOST_QDEAD_<Q>   subject gpucost.q.Q.dead, dead letters: the item, its error, deliveries
//
// a key-value bucket GPUCOST_QTRIES_<Q> of what each failed delivery of an item came to, so
// that a dead letter can say why even when the workers that saw it died (see attempt.go),
// and one durable pull consumer, "workers", on the items stream. They are created on first use,
// idempotently, with settings that a NATS 2.9 server (Debian's) accepts as well as 2.15.
package queue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// DefaultURL is where the queue commands look for NATS when told nothing else.
const DefaultURL = "nats://127.0.0.1:4222"

// ServerCommand is the binary that runs the queue server (cmd/gpucost-queue-server, package
// natsserver): gpucost queue serve starts it, so that the NATS server stays out of the gpucost
// binary every GPU node runs (docs/architecture.md "Binary size").
const ServerCommand = "gpucost-queue-server"

// DuplicateWindow is how long JetStream remembers an item id, so that pushing the same item
// again within it adds nothing. Past it, a re-pushed item runs again but its stored result is
// found and kept, so it still has one result. Ids are held in server memory for this long.
const DuplicateWindow = time.Hour

// consumerName is the durable pull consumer that all workers of a queue share.
const consumerName = "workers"

// Headers on item messages.
const (
	headerSource = "Gpucost-Source" // "file:line" the item came from
	headerError  = "Gpucost-Error"  // why the line is not an item; the worker dead-letters it
	// headerTimeout is the item's own time limit, a Go duration; it wins over the worker's.
	headerTimeout = "Gpucost-Item-Timeout"
	// headerSegment, on a done message, is the results segment the item's result went into.
	headerSegment = "Gpucost-Segment"
)

// Client is a connection to the NATS server that holds the queues.
type Client struct {
	nc  *nats.Conn
	js  jetstream.JetStream
	Log *slog.Logger
}

// Dial connects to the NATS server at url.
func Dial(ctx context.Context, url string) (*Client, error) {
	if url == "" {
		url = DefaultURL
	}
	nc, err := nats.Connect(url, nats.Name("gpucost queue"), nats.MaxReconnects(-1),
		nats.ReconnectWait(250*time.Millisecond), nats.Timeout(5*time.Second))
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EUnavailable, "connect to NATS at %s: %w (start one with: gpucost queue serve)", url, err)
	}
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(4096))
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("open JetStream at %s: %w", url, err)
	}
	return &Client{nc: nc, js: js, Log: slog.New(slog.DiscardHandler)}, nil
}

// Close closes the connection after flushing what was published.
func (c *Client) Close() {
	c.nc.Drain()
}

// names are the streams and subjects of one queue.
type names struct {
	queue                        string
	items, done, dead            string // subjects
	itemStream, doneStr, deadStr string
	tries                        string // key-value bucket of failed deliveries (attempt.go)
}

func queueNames(q string) (names, error) {
	if err := checkQueueName(q); err != nil {
		return names{}, err
	}
	p := "gpucost.q." + q + "."
	return names{queue: q, items: p + "items", done: p + "done", dead: p + "dead",
		itemStream: "GPUCOST_Q_" + q, doneStr: "GPUCOST_QDONE_" + q, deadStr: "GPUCOST_QDEAD_" + q,
		tries: "GPUCOST_QTRIES_" + q}, nil
}

// checkQueueName accepts what can be both a subject token and part of a stream name.
func checkQueueName(q string) error {
	if q == "" || len(q) > 64 {
		return gpucost.Errorf(gpucost.EInvalid, "queue name %q: use 1 to 64 letters, digits, '-' or '_'", q)
	}
	for _, c := range q {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return gpucost.Errorf(gpucost.EInvalid, "queue name %q: %q is not allowed; use letters, digits, '-' or '_'", q, c)
		}
	}
	return nil
}

// ensureStreams creates the queue's streams if they are missing and returns their names.
// Several pushers and workers may call it at once.
func (c *Client) ensureStreams(ctx context.Context, q string) (names, error) {
	n, err := queueNames(q)
	if err != nil {
		return n, err
	}
	cfgs := []jetstream.StreamConfig{
		{Name: n.itemStream, Subjects: []string{n.items}, Retention: jetstream.WorkQueuePolicy,
			Storage: jetstream.FileStorage, Duplicates: DuplicateWindow, Discard: jetstream.DiscardOld},
		{Name: n.doneStr, Subjects: []string{n.done, n.done + ".*"}, Retention: jetstream.LimitsPolicy,
			Storage: jetstream.FileStorage, Duplicates: DuplicateWindow},
		{Name: n.deadStr, Subjects: []string{n.dead}, Retention: jetstream.LimitsPolicy,
			Storage: jetstream.FileStorage, Duplicates: DuplicateWindow},
	}
	for _, cfg := range cfgs {
		if err := c.ensureStream(ctx, cfg); err != nil {
			return n, err
		}
	}
	return n, nil
}

// ensureStream creates the stream cfg names, or adds the subjects of cfg that an existing one
// lacks (the done stream of a queue made before results segments has no per-item subjects).
func (c *Client) ensureStream(ctx context.Context, cfg jetstream.StreamConfig) error {
	s, err := c.js.Stream(ctx, cfg.Name)
	if err == nil {
		return c.addSubjects(ctx, s.CachedInfo().Config, cfg.Subjects)
	} else if !errors.Is(err, jetstream.ErrStreamNotFound) {
		return unavailable("look up stream "+cfg.Name, err)
	}
	_, err = c.js.CreateStream(ctx, cfg)
	if err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return unavailable("create stream "+cfg.Name, err)
	}
	return nil
}

// addSubjects updates the stream of cfg to take subjects as well, if it does not.
func (c *Client) addSubjects(ctx context.Context, cfg jetstream.StreamConfig, subjects []string) error {
	missing := false
	for _, s := range subjects {
		if !slices.Contains(cfg.Subjects, s) {
			cfg.Subjects = append(cfg.Subjects, s)
			missing = true
		}
	}
	if !missing {
		return nil
	}
	if _, err := c.js.UpdateStream(ctx, cfg); err != nil {
		return unavailable("add subjects to stream "+cfg.Name, err)
	}
	return nil
}

// deadLetterDeliveries is how many deliveries past deliveryCap the consumer allows. They do
// not run the command: a worker that gets one dead-letters the item, so an item whose worker
// died on its last run still ends in the dead-letter stream. One is enough: if that worker
// dies too, within the milliseconds between fetch and ack, the server stops delivering the
// item and an idle worker's sweep dead-letters it.
const deadLetterDeliveries = 1

// ensureConsumer creates or updates the queue's durable consumer so that a delivery not acked
// within visibility goes to another worker (the worker's heartbeat extends it while the command
// runs, so only a dead worker's items come back), and that the server delivers an item at most
// deliveryCap(maxDeliveries) + deadLetterDeliveries times.
func (c *Client) ensureConsumer(ctx context.Context, n names, visibility time.Duration, maxDeliveries int) (jetstream.Consumer, error) {
	cfg := jetstream.ConsumerConfig{
		Durable:       consumerName,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       visibility,
		MaxDeliver:    int(deliveryCap(maxDeliveries)) + deadLetterDeliveries,
		MaxAckPending: 100_000,
		FilterSubject: n.items,
		DeliverPolicy: jetstream.DeliverAllPolicy,
	}
	cons, err := c.js.CreateOrUpdateConsumer(ctx, n.itemStream, cfg)
	if err != nil {
		return nil, unavailable("create consumer "+consumerName+" on "+n.itemStream, err)
	}
	return cons, nil
}

func unavailable(doing string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %w", doing, err)
	}
	return gpucost.Errorf(gpucost.EUnavailable, "%s: %w", doing, err)
}

// Item is one unit of work as it travels: the JSON line and its id.
type Item struct {
	ID   string
	Data []byte // the JSON object, without the line break
}

// maxIDLen keeps an id usable as an object key and a message header.
const maxIDLen = 200

// ParseItem reads one JSONL line. The id is the object's "id" field (a string, or a number as
// written) or else the hex SHA-256 of the line. A line that is not a JSON object, or whose id
// cannot name a result, returns an error; its Item still carries the line and its hash id, so
// it can be dead-lettered with the error.
func ParseItem(line []byte) (Item, error) {
	it := Item{Data: line}
	var obj struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(line, &obj); err != nil {
		it.ID = hashID(line)
		return it, fmt.Errorf("not a JSON object: %w", err)
	}
	if len(line) == 0 || line[0] != '{' {
		it.ID = hashID(line)
		return it, errors.New("not a JSON object")
	}
	id, err := idOf(obj.ID)
	if err != nil {
		it.ID = hashID(line)
		return it, err
	}
	if id == "" {
		id = hashID(line)
	}
	it.ID = id
	return it, nil
}

func hashID(line []byte) string {
	sum := sha256.Sum256(line)
	return hex.EncodeToString(sum[:])
}

// idOf returns the id written in raw, "" if there is none.
func idOf(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var id string
	switch raw[0] {
	case '"':
		if err := json.Unmarshal(raw, &id); err != nil {
			return "", fmt.Errorf("field \"id\": %w", err)
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		id = string(raw)
	default:
		return "", fmt.Errorf("field \"id\" is %s; use a string or a number", raw)
	}
	return id, CheckID(id)
}

// CheckID returns an error if id cannot name a result object: empty, too long, ".", "..", or
// holding '/', '\\' or a control character.
func CheckID(id string) error {
	if id == "" || len(id) > maxIDLen || id == "." || id == ".." || strings.HasPrefix(id, ".gpucost-") {
		return fmt.Errorf("id %q: use 1 to %d characters, not \".\" or \"..\"", id, maxIDLen)
	}
	for _, c := range id {
		if c < 0x20 || c == 0x7f || c == '/' || c == '\\' {
			return fmt.Errorf("id %q: %q is not allowed in an id (it names the result object)", id, c)
		}
	}
	return nil
}

// ResultKey is the object key under which workers stored an item's result before results
// segments (results.go): the id itself, so that `--results out/` held out/<id>. ReadResults and
// a worker's check for a stored result still read it; `gpucost queue results --to DIR` writes
// results in that layout.
func ResultKey(id string) string { return id }
