package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/gpucost/gpucost/internal/exitcode"
	"github.com/gpucost/gpucost/internal/storeopen"
	"github.com/spf13/cobra"
)

// env is what a command may use of the outside world: its streams, the environment and the
// global flags. Tests build one with buffers and a fixed getenv.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	now            func() time.Time

	dbPath string // --db
	output string // --output
	wide   bool   // --wide

	wrapStore func(storeDB) storeDB // tests: the store as the commands see it; nil: as opened
}

// Exit codes that scripts can rely on (internal/exitcode).
const (
	exitOK          = exitcode.OK
	exitFailure     = exitcode.Failure
	exitInvalid     = exitcode.Invalid
	exitNotFound    = exitcode.NotFound
	exitUnavailable = exitcode.Unavailable
	exitConflict    = exitcode.Conflict
	exitBudget      = exitcode.Budget
	exitPolicy      = exitcode.Policy
)

// exitError carries an exit code chosen by a command itself, such as the profiled command's
// (exitcode.Chosen).
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }
func (e exitError) ExitCode() int { return e.code }

// run executes the command line args and returns the process exit code.
func run(ctx context.Context, args []string, e *env) int {
	if e.now == nil {
		e.now = time.Now
	}
	root := newRootCmd(e)
	root.SetArgs(args)
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	err := root.ExecuteContext(ctx)
	if !exitcode.Quiet(err) {
		fmt.Fprintln(e.stderr, "gpucost:", err)
	}
	return exitcode.For(err)
}

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "gpucost",
		Short: "Find where GPU money goes, what is idle, and what it costs",
		Long: `gpucost collects GPU utilisation (NVML, nvidia-smi, dcgm-exporter, Prometheus), keeps
minute and hourly rollups in a store, prices GPUs from a bundled catalog, imports the cloud bill
(FOCUS, AWS CUR, GCP and Azure exports) exactly, splits GPU spend across the teams and jobs
that used it with idle capacity apart, and recommends the changes that cut it.

Exit codes: 0 success, 1 failure, 2 invalid input or flags, 3 nothing found,
4 a source or server unavailable, 5 a conflict with what is stored, 6 a job that would
break a budget (gpucost estimate), 7 a policy triggered (gpucost enforce) or would stop the
job (gpucost estimate --policies).`,
		Example: `  gpucost demo                              # load a 30-day demo fleet and print the headline
  gpucost catalog gpus --gpu H100 --spot    # cheapest H100 per provider
  gpucost agent --source dcgm=http://localhost:9400/metrics
  gpucost report utilization --since 7d --by namespace
  gpucost import billing cur2/ && gpucost report cost --by team
  gpucost recommend`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&e.dbPath, "db", storeopen.DefaultPath(e.getenv),
		"the store: a SQLite file, or a postgres:// URL shared by server replicas (default from $GPUCOST_DB, else a file in the user data directory)")
	root.PersistentFlags().StringVarP(&e.output, "output", "o", "table", "output format: table, json or csv")
	root.PersistentFlags().BoolVar(&e.wide, "wide", false, "print every column of a table whole, however wide the terminal ($COLUMNS or its size)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(
		newVersionCmd(e),
		newCatalogCmd(e),
		newAgentCmd(e),
		newImportCmd(e),
		newProfileCmd(e),
		newReportCmd(e),
		newExportCmd(e),
		newPlanCmd(e),
		newRecommendCmd(e),
		newDemoCmd(e),
		newQueueCmd(e),
		newRunCmd(e),
		newServeCmd(e),
		newTokenCmd(e), newAuditCmd(e),
		newBudgetCmd(e), newEstimateCmd(e), newEnforceCmd(e),
		newBillsCmd(e),
	)
	addVersionFlag(root, e)
	registerCompletions(root, e)
	markUsageErrors(root)
	return root
}

// markUsageErrors makes every command's argument errors usage errors, which exit with
// exitInvalid.
func markUsageErrors(c *cobra.Command) {
	if c.Args != nil {
		c.Args = usageArgs(c.Args)
	}
	if c.HasSubCommands() && c.Run == nil && c.RunE == nil && c.HasParent() {
		// A group such as "report": cobra would print its help and exit 0 on a misspelt
		// subcommand.
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError{fmt.Errorf("unknown command %q for %q; see %s --help", args[0], cmd.CommandPath(), cmd.CommandPath())}
			}
			return cmd.Help()
		}
	}
	for _, sub := range c.Commands() {
		markUsageErrors(sub)
	}
}

// usageArgs marks cobra's argument errors as usage errors, which exit with exitInvalid.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}

// usageError marks a flag or argument error, which exits with exitInvalid.
type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

// UsageError makes it an exitcode.Usage.
func (usageError) UsageError() {}
