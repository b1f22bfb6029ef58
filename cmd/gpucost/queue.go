package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/queue"
	"github.com/gpucost/gpucost/queue/natsserver"
	"github.com/spf13/cobra"
)

func newQueueCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "queue",
		Short: "A work queue for batch jobs on spot machines, on NATS JetStream",
		Long: `queue runs batch work on machines that may vanish: items are pushed once, workers run a
command over batches of them, and every item ends with exactly one result or in the dead-letter
stream with its error, however often workers are killed.

"queue serve" runs an embedded NATS server; every other command connects to --nats (default
$GPUCOST_NATS, else ` + queue.DefaultURL + `), so the same commands work against a NATS cluster.`,
		Example: `  gpucost queue serve --data /var/lib/gpucost/queue &
  gpucost queue push --queue captions images.jsonl
  gpucost queue work --queue captions --results s3://bucket/captions --batch 32 -- python caption.py
  gpucost queue status --queue captions`,
	}
	cmd.AddCommand(newQueueServeCmd(e), newQueuePushCmd(e), newQueueWorkCmd(e), newQueueStatusCmd(e), newQueueDeadCmd(e))
	return cmd
}

// natsFlag adds --nats to cmd.
func natsFlag(e *env, cmd *cobra.Command, url *string) {
	def := e.getenv("GPUCOST_NATS")
	if def == "" {
		def = queue.DefaultURL
	}
	cmd.Flags().StringVar(url, "nats", def, "NATS server URL (default from $GPUCOST_NATS)")
}

func newQueueServeCmd(e *env) *cobra.Command {
	o := natsserver.Options{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the embedded NATS JetStream server that holds the queues, until interrupted",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Ready = func(url string) {
				fmt.Fprintf(e.stdout, "queue server listening at %s (data in %s); stop it with Ctrl-C or SIGTERM\n", url, o.DataDir)
			}
			return natsserver.Serve(cmd.Context(), o)
		},
	}
	noDB := func(k string) string {
		if k == "GPUCOST_DB" {
			return ""
		}
		return e.getenv(k)
	}
	cmd.Flags().StringVar(&o.DataDir, "data", filepath.Join(filepath.Dir(defaultDBPath(noDB)), "queue"),
		"directory for JetStream's files; queues survive a restart that reuses it")
	cmd.Flags().StringVar(&o.Listen, "listen", "127.0.0.1:4222", "host:port to listen on")
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
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.validOutput(); err != nil {
				return err
			}
			r, name, closeIn, err := openInput(e, args[0])
			if err != nil {
				return err
			}
			defer closeIn()
			c, err := queue.Dial(cmd.Context(), url)
			if err != nil {
				return err
			}
			defer c.Close()
			bar := e.progress(-1, "pushing "+name, false)
			st, err := c.PushWith(cmd.Context(), q, r, queue.PushOptions{Source: name, ItemTimeout: itemTimeout,
				Progress: func(lines int64) { bar.Set64(lines) }})
			bar.Finish()
			if err != nil {
				return err
			}
			return e.print(pushResult(q, st))
		},
	}
	natsFlag(e, cmd, &url)
	cmd.Flags().StringVar(&q, "queue", "", "queue name (letters, digits, '-', '_')")
	cmd.Flags().DurationVar(&itemTimeout, "item-timeout", 0, "each item's time limit, which wins over the worker's --item-timeout; 0: the worker's")
	cmd.MarkFlagRequired("queue")
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

func pushResult(q string, st queue.PushStats) result {
	r := result{
		Title:   "Pushed to queue " + q,
		Columns: []string{"Pushed", "Duplicates", "Malformed"},
		Rows:    [][]string{{strconv.FormatInt(st.Pushed, 10), strconv.FormatInt(st.Duplicates, 10), strconv.FormatInt(st.Malformed, 10)}},
		Right:   []int{0, 1, 2},
		JSON:    st,
	}
	if st.Malformed > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d malformed lines were queued to be dead-lettered with their errors (see them with: gpucost queue dead --queue %s); the first:", st.Malformed, q))
		for _, m := range st.FirstErrors {
			r.Notes = append(r.Notes, "  "+m)
		}
	}
	return r
}

func newQueueStatusCmd(e *env) *cobra.Command {
	var url, q string
	cmd := &cobra.Command{
		Use:   "status --queue Q",
		Short: "Show a queue's pending, in-flight, done and dead items, its rate and ETA",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withQueue(cmd.Context(), url, func(c *queue.Client) error {
				st, err := c.Status(cmd.Context(), q, e.now())
				if err != nil {
					return err
				}
				return e.print(statusResult(st))
			})
		},
	}
	natsFlag(e, cmd, &url)
	cmd.Flags().StringVar(&q, "queue", "", "queue name")
	cmd.MarkFlagRequired("queue")
	return cmd
}

// withQueue checks --output, connects to the NATS server at url and calls fn with the client.
func (e *env) withQueue(ctx context.Context, url string, fn func(*queue.Client) error) error {
	if err := e.validOutput(); err != nil {
		return err
	}
	c, err := queue.Dial(ctx, url)
	if err != nil {
		return err
	}
	defer c.Close()
	return fn(c)
}

func statusResult(st queue.Status) result {
	eta := ""
	switch {
	case st.Pending+st.InFlight == 0:
		eta = "finished"
	case st.ETA > 0:
		eta = st.ETA.String()
	default:
		eta = "unknown (nothing done in the last minute)"
	}
	var notes []string
	if len(st.RecentDead) > 0 {
		notes = append(notes, fmt.Sprintf("Newest dead letters (all of them: gpucost queue dead --queue %s):", st.Queue))
	}
	for _, d := range st.RecentDead {
		notes = append(notes, fmt.Sprintf("  %s: %s", d.ID, d.Error))
	}
	return result{
		Title:   "Queue " + st.Queue,
		Notes:   notes,
		Columns: []string{"Pending", "In flight", "Done", "Dead", "Rate", "ETA"},
		Rows: [][]string{{fmt.Sprint(st.Pending), fmt.Sprint(st.InFlight), fmt.Sprint(st.Done), fmt.Sprint(st.Dead),
			fmt.Sprintf("%.1f/s", st.Rate), eta}},
		Right: []int{0, 1, 2, 3, 4},
		JSON: struct {
			queue.Status
			ETASeconds float64 `json:"eta_seconds"`
		}{st, st.ETA.Seconds()},
	}
}

func newQueueDeadCmd(e *env) *cobra.Command {
	var url, q string
	cmd := &cobra.Command{
		Use:   "dead --queue Q",
		Short: "List a queue's dead letters: the items that will not be tried again, with why",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withQueue(cmd.Context(), url, func(c *queue.Client) error {
				dead, err := c.DeadLetters(cmd.Context(), q)
				if err != nil {
					return err
				}
				r := result{Title: "Dead letters of queue " + q, JSON: dead,
					Columns: []string{"ID", "Source", "Error", "Exit", "Deliveries", "Stderr (end)"}, Right: []int{3, 4}}
				for _, d := range dead {
					exit := ""
					if d.ExitCode != nil {
						exit = strconv.Itoa(*d.ExitCode)
					}
					r.Rows = append(r.Rows, []string{d.ID, d.Source, d.Error, exit, strconv.FormatUint(d.Deliveries, 10), lastLine(d.Stderr)})
				}
				return e.print(r)
			})
		},
	}
	natsFlag(e, cmd, &url)
	cmd.Flags().StringVar(&q, "queue", "", "queue name")
	cmd.MarkFlagRequired("queue")
	return cmd
}

// lastLine returns the last non-empty line of s, for a table cell.
func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
