package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/queue"
	"github.com/spf13/cobra"
)

func newQueueResultsCmd(e *env) *cobra.Command {
	var results, id, to string
	cmd := &cobra.Command{
		Use:   "results --results DIR|s3://BUCKET/PREFIX [--id ID | --to DIR]",
		Short: "Print the results that queue workers stored, one per item, or write them one file per item",
		Long: `results reads a --results store as queue work wrote it: one segment object per batch
(under ` + queue.SegmentPrefix + `), with each item's result inside, and the one object per item that
workers before segments wrote. Each item is given once, with its first stored result: an item
whose worker was killed after storing its batch and before recording it is run and stored again,
and that later result is left out.

Without flags it prints every result as the command wrote it, in the order they were stored
(with --batch above 1 that is one line per item: JSONL when the command writes JSON). --id
prints one item's result. --to writes each result to DIR/<id>, the layout of one file per item.
It reads only the store; no NATS server is needed.`,
		Example: `  gpucost queue results --results s3://bucket/captions > captions.jsonl
  gpucost queue results --results /data/captions --id img-0042
  gpucost queue results --results s3://bucket/captions --to ./captions/`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if id != "" && to != "" {
				return usageError{fmt.Errorf("give --id or --to, not both")}
			}
			store, err := openObjectStore(cmd.Context(), e, results)
			if err != nil {
				return err
			}
			if id != "" {
				r, err := queue.FindResult(cmd.Context(), store, id)
				if err != nil {
					return err
				}
				_, err = e.stdout.Write(r.Data)
				return err
			}
			write := func(r queue.Result) error {
				_, err := e.stdout.Write(r.Data)
				return err
			}
			if to != "" {
				if err := os.MkdirAll(to, 0o755); err != nil {
					return gpucost.Errorf(gpucost.EInvalid, "create --to directory %s: %w", to, err)
				}
				write = func(r queue.Result) error {
					return os.WriteFile(filepath.Join(to, queue.ResultKey(r.ID)), r.Data, 0o644)
				}
			}
			st, err := queue.ReadResults(cmd.Context(), store, write)
			if err != nil {
				return err
			}
			summary := e.stderr
			if to != "" {
				summary = e.stdout
			}
			fmt.Fprintf(summary, "%d results from %d segments", st.Items, st.Segments)
			if st.Duplicates > 0 {
				fmt.Fprintf(summary, "; %d stored again after a worker was killed, left out", st.Duplicates)
			}
			fmt.Fprintln(summary)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&results, "results", "", "the store queue work wrote to: a directory, file://PATH or s3://BUCKET/PREFIX")
	f.StringVar(&id, "id", "", "print only this item's result")
	f.StringVar(&to, "to", "", "write each result to DIR/<id> instead of printing them")
	cmd.MarkFlagRequired("results")
	return cmd
}
