package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeopen"
	"github.com/gpucost/gpucost/present"
	"github.com/gpucost/gpucost/queue"
	"github.com/spf13/cobra"
)

func newQueueCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "queue",
		Short: "A work queue for batch jobs on spot machines, on NATS JetStream",
		Long: `queue runs batch work on machines that may vanish: items are pushed once, workers run a
command over batches of them, and every item ends with exactly one result or in the dead-letter
stream with its error, however often workers are killed.

"queue serve" runs the NATS server (` + queue.ServerCommand + `); every other command connects to --nats (default
$GPUCOST_NATS, else ` + queue.DefaultURL + `), so the same commands work against a NATS cluster.`,
		Example: `  gpucost queue serve --data /var/lib/gpucost/queue &
  gpucost queue push --queue captions images.jsonl
  gpucost queue work --queue captions --results s3://bucket/captions --batch 32 -- python caption.py
  gpucost queue status --queue captions
  gpucost queue results --results s3://bucket/captions > captions.jsonl`,
	}
	cmd.AddCommand(newQueueServeCmd(e), newQueuePushCmd(e), newQueueWorkCmd(e), newQueueStatusCmd(e), newQueueDeadCmd(e), newQueueResultsCmd(e))
	return cmd
}

// queueFlags adds --nats and the required --queue, described as usage, to cmd.
func queueFlags(e *env, cmd *cobra.Command, url, q *string, usage string) {
	def := e.getenv("GPUCOST_NATS")
	if def == "" {
		def = queue.DefaultURL
	}
	cmd.Flags().StringVar(url, "nats", def, "NATS server URL (default from $GPUCOST_NATS)")
	cmd.Flags().StringVar(q, "queue", "", usage)
	cmd.MarkFlagRequired("queue")
}

func newQueueServeCmd(e *env) *cobra.Command {
	var data, listen string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the NATS JetStream server that holds the queues, until interrupted",
		Long: `serve runs the NATS JetStream server that holds the queues until Ctrl-C or SIGTERM. The
server is the binary ` + queue.ServerCommand + `, built beside gpucost by make build (bin/): serve runs the one named by
$GPUCOST_QUEUE_SERVER, else the one in gpucost's own directory, else the one on $PATH. It is a
binary of its own so that the NATS server stays out of the gpucost every GPU node runs.`,
		Example: `  gpucost queue serve --data /var/lib/gpucost/queue --listen 0.0.0.0:4222`,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			bin, err := queue.FindServer(e.getenv)
			if err != nil {
				return err
			}
			return queue.RunServer(cmd.Context(), bin, data, listen, e.stdout, e.stderr)
		},
	}
	cmd.Flags().StringVar(&data, "data", filepath.Join(storeopen.DataDir(e.getenv), "queue"),
		"directory for JetStream's files; queues survive a restart that reuses it")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:4222", "host:port to listen on")
	return cmd
}

func newQueuePushCmd(e *env) *cobra.Command {
	var (
		url, q      string
		itemTimeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "push --queue Q FILE.jsonl|-",
		Short: "Add the items of a JSONL file to a queue; an item's id is its \"id\" field or a hash",
		Long: `push adds each line of a JSONL file (or stdin with -) as one item. The item's id is its "id"
field (a string or a number) or else the SHA-256 of the line; it names the result. Pushing the
same items again within an hour adds nothing (JetStream de-duplicates by id).

A malformed line does not stop the push: it is counted and named here, and the first worker
moves it to the dead-letter stream with its parse error and file:line.

--item-timeout goes with the items: a worker kills a run of its command that takes longer than
that per item, whatever the worker's own --item-timeout.`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			if err := durNotNegative("item-timeout", itemTimeout); err != nil {
				return result{}, err
			}
			r, name, closeIn, err := openInput(e, args[0])
			if err != nil {
				return result{}, err
			}
			defer closeIn()
			return withQueue(cmd.Context(), url, func(c *queue.Client) (result, error) {
				bar := e.progress(-1, "pushing "+name, false)
				st, err := c.PushWith(cmd.Context(), q, r, queue.PushOptions{Source: name, ItemTimeout: itemTimeout,
					Progress: func(lines int64) { bar.Set64(lines) }})
				bar.Finish()
				return present.QueuePush(q, st), err
			})
		}),
	}
	queueFlags(e, cmd, &url, &q, "queue name (letters, digits, '-', '_')")
	cmd.Flags().DurationVar(&itemTimeout, "item-timeout", 0, "each item's time limit, which wins over the worker's --item-timeout; 0: the worker's")
	return cmd
}

// openInput opens a file argument, or stdin for "-".
func openInput(e *env, arg string) (io.Reader, string, func(), error) {
	if arg == "-" {
		return e.stdin, "stdin", func() {}, nil
	}
	f, err := os.Open(arg)
	if err != nil {
		return nil, "", nil, gpucost.Errorf(gpucost.EInvalid, "open %s: %w", arg, err)
	}
	return f, arg, func() { f.Close() }, nil
}

func newQueueStatusCmd(e *env) *cobra.Command {
	var url, q string
	cmd := &cobra.Command{
		Use:   "status --queue Q",
		Short: "Show a queue's pending, in-flight, done and dead items, its rate and ETA",
		Args:  usageArgs(cobra.NoArgs),
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			return withQueue(cmd.Context(), url, func(c *queue.Client) (result, error) {
				return shown(present.QueueStatus)(c.Status(cmd.Context(), q, e.now()))
			})
		}),
	}
	queueFlags(e, cmd, &url, &q, "queue name")
	return cmd
}

// withQueue connects to the NATS server at url and calls fn with the client.
func withQueue(ctx context.Context, url string, fn func(*queue.Client) (result, error)) (result, error) {
	c, err := queue.Dial(ctx, url)
	if err != nil {
		return result{}, err
	}
	defer c.Close()
	return fn(c)
}

func newQueueDeadCmd(e *env) *cobra.Command {
	var url, q string
	cmd := &cobra.Command{
		Use:   "dead --queue Q",
		Short: "List a queue's dead letters: the items that will not be tried again, with why",
		Args:  usageArgs(cobra.NoArgs),
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			return withQueue(cmd.Context(), url, func(c *queue.Client) (result, error) {
				dead, err := c.DeadLetters(cmd.Context(), q)
				return present.QueueDead(q, dead), err
			})
		}),
	}
	queueFlags(e, cmd, &url, &q, "queue name")
	return cmd
}
