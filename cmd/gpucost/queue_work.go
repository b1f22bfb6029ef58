package main

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/gpucost/gpucost/queue"
	"github.com/spf13/cobra"
)

func newQueueWorkCmd(e *env) *cobra.Command {
	var (
		url, results string
		w            queue.Worker
	)
	cmd := &cobra.Command{
		Use:   "work --queue Q --results DIR|s3://BUCKET/PREFIX [flags] -- CMD [ARGS...]",
		Short: "Run a command over a queue's items and store each item's result",
		Long: `work fetches up to --batch items, runs CMD once with them as JSONL on stdin, and on exit 0
stores the command's stdout as each item's result, by its id, in the --results store: one output
line per input line, in order (with --batch 1, the whole stdout). A batch's results go into one
object, a segment under ` + queue.SegmentPrefix + `, so that a store where each new object costs
milliseconds still takes thousands of items a second; read them with gpucost queue results. An
item is acked only after its segment is stored, and a redelivered item whose result is recorded
is not run again, so each item gets exactly one result even if workers are killed (an item
stored twice, by a worker killed between its segment and its record, is read with its first).

While CMD runs the worker extends the items' visibility every --visibility/3. A non-zero exit,
or a run longer than --item-timeout per item (its whole process group is killed), retries the
items later with a growing delay (a failed batch of several items is split in halves first, so
one bad item does not fail the rest).

Every delivery counts, also one whose worker died with it (JetStream counts them), so an item
that kills its worker cannot hold the queue: a failure on the --max-deliveries-th delivery, or a
delivery after it, moves the item to the dead-letter stream with the reason, such as "worker
died during 3 deliveries" or "timed out after 10m0s in 2 of 3 deliveries", its exit code and
the end of its stderr; the other items keep flowing. From its third delivery an item runs
alone, and a delivery whose worker died before starting it (it waited behind the item that
killed the worker) does not count; no item is delivered more than twice --max-deliveries
times. See the dead items with: gpucost queue dead.

SIGTERM or Ctrl-C stops fetching and lets the running batch finish within --visibility.`,
		Example: `  gpucost queue work --queue captions --results /data/captions --batch 32 -- python caption.py
  gpucost queue work --queue q --results s3://bucket/out --visibility 2m --exit-when-empty -- ./infer.sh
  gpucost queue work --queue q --results out/ --item-timeout 10m --max-deliveries 3 -- ./flaky.sh`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() != 0 {
				return usageError{fmt.Errorf("give the command after --, such as: gpucost queue work --queue Q --results DIR -- cat")}
			}
			if err := firstError(durAtLeast("visibility", w.Visibility, 1), intAtLeast("max-deliveries", w.MaxDeliveries, 1),
				durNotNegative("item-timeout", w.ItemTimeout), intAtLeast("batch", w.Batch, 1), intAtLeast("concurrency", w.Concurrency, 1)); err != nil {
				return err
			}
			store, err := openObjectStore(cmd.Context(), e, results)
			if err != nil {
				return err
			}
			c, err := queue.Dial(cmd.Context(), url)
			if err != nil {
				return err
			}
			defer c.Close()
			host, _ := os.Hostname()
			w.Client, w.Results, w.Command = c, store, args
			w.Name = fmt.Sprintf("%s:%d", host, os.Getpid())
			w.Stderr = e.stderr
			w.Log = slog.New(slog.NewTextHandler(e.stderr, nil))
			if err := w.Run(cmd.Context()); err != nil {
				return err
			}
			st := w.Stats()
			fmt.Fprintf(e.stdout, "worked queue %s: %d done, %d already done, %d retried, %d dead-lettered\n",
				w.Queue, st.Done.Load(), st.Skipped.Load(), st.Retried.Load(), st.Dead.Load())
			return nil
		},
	}
	queueFlags(e, cmd, &url, &w.Queue, "queue name")
	f := cmd.Flags()
	f.StringVar(&results, "results", "", "where results go: a directory, file://PATH or s3://BUCKET/PREFIX")
	f.DurationVar(&w.Visibility, "visibility", 10*time.Minute, "an item not acked within this goes to another worker (extended while CMD runs)")
	f.IntVar(&w.MaxDeliveries, "max-deliveries", 5, "deliveries (failed, timed out or whose worker died) before the item is dead-lettered")
	f.DurationVar(&w.ItemTimeout, "item-timeout", 0, "kill a run of CMD over k items after k times this, and retry them; 0: no limit (items pushed with --item-timeout bring their own)")
	f.IntVar(&w.Batch, "batch", 1, "items per run of CMD")
	f.IntVar(&w.Concurrency, "concurrency", 1, "runs of CMD at once")
	f.BoolVar(&w.ExitWhenEmpty, "exit-when-empty", false, "exit once nothing is pending or in flight")
	cmd.MarkFlagRequired("results")
	return cmd
}
