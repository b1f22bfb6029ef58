package main

import (
	"context"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/present"
	"github.com/gpucost/gpucost/telemetry"
	"github.com/gpucost/gpucost/telemetry/csvtelemetry"
	"github.com/gpucost/gpucost/telemetry/nvidiasmi"
	"github.com/gpucost/gpucost/telemetry/teleimport"
	"github.com/spf13/cobra"
)

func newImportCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Load recorded data into the store",
	}
	cmd.AddCommand(newImportTelemetryCmd(e), newImportBillingCmd(e), newImportInventoryCmd(e), newImportListCmd(e), newBillsRemoveCmd(e), newBillsPeriodsCmd(e))
	return cmd
}

// csvExample is the telemetry CSV file import telemetry --help shows; a test imports it as
// the help prints it.
const csvExample = `timestamp,gpu,util,memory_used_mib,memory_total_mib,power_w,host,model,labels
2026-11-02T10:00:00Z,GPU-7f3a,87.5,61440,81920,310.5,node-1,NVIDIA A100-SXM4-80GB,team=search;job=train-7
2026-11-02 10:01:00,GPU-7f3a,12,61440,81920,95,node-1,NVIDIA A100-SXM4-80GB,team=search;job=train-7
2026-11-02 10:00:00,0,0,0,23034,,node-2,NVIDIA L4,`

// fileStats is what importing one telemetry file did.
type fileStats = teleimport.Stats

func newImportTelemetryCmd(e *env) *cobra.Command {
	var (
		format string
		at     string
		host   string
		model  string
	)
	cmd := &cobra.Command{
		Use:   "telemetry FILE...",
		Short: "Import recorded dcgm-exporter or nvidia-smi output, or a telemetry CSV file",
		Long: `telemetry reads recorded GPU telemetry and stores its minute and hourly rollups, the same way
the agent does. dcgm files hold one or more /metrics scrapes; sample lines carry the
exposition format's millisecond timestamps, and lines without one take --at (default: the
file's modification time). nvidia-smi files hold the output of
  ` + nvidiasmi.RecordCommand + `
with or without the header line (--format=csv) and units; ",mig.mode.current" may follow the
fields. With a header line the columns may be any --query-gpu fields that include timestamp
and uuid or index.

Bad lines of dcgm and nvidia-smi files are reported with file and line and skipped; the rest
is stored. Importing the same file again stores nothing twice.

` + csvtelemetry.Doc + `

A CSV file util.csv such as
  ` + strings.ReplaceAll(csvExample, "\n", "\n  ") + `
is imported with
  gpucost import telemetry --format csv util.csv`,
		Example: `  gpucost import telemetry --format dcgm scrapes/*.prom
  gpucost import telemetry --format dcgm --at 2026-11-01T10:00:00Z one-scrape.prom
  gpucost import telemetry --format nvidia-smi --host gpu-node-7 smi.csv
  gpucost import telemetry --format csv --host trace-cluster trace.csv
  gpucost import telemetry --format dcgm --model "NVIDIA L40S" scrapes/*.prom`,
		Args: cobra.MinimumNArgs(1),
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			o := teleimport.Options{Host: host, Model: model}
			var err error
			if o.Format, err = teleimport.ParseFormat(format); err != nil {
				return result{}, err
			}
			if at != "" {
				if o.At, err = time.Parse(time.RFC3339, at); err != nil {
					return result{}, gpucost.Errorf(gpucost.EInvalid, "--at %q: use RFC 3339, such as 2026-11-01T10:00:00Z", at)
				}
			}
			return fromStore(cmd.Context(), e, func(db storeDB) (result, error) {
				im := &teleimport.Importer{
					Writer:   func(ctx context.Context) (*telemetry.Writer, error) { return e.rollupWriter(ctx, db) },
					Progress: e.byteProgress,
				}
				return shown(present.TelemetryImports)(im.ImportFiles(cmd.Context(), args, o))
			})
		}),
	}
	cmd.Flags().StringVar(&format, "format", "dcgm", "file format: dcgm, nvidia-smi or csv")
	cmd.Flags().StringVar(&at, "at", "", "time of samples without a timestamp (RFC 3339; default the file's modification time)")
	cmd.Flags().StringVar(&model, "model", "", `GPU model of every sample, for recordings without a name column or with a name the catalog does not know (such as "NVIDIA A100-SXM4-40GB")`)
	cmd.Flags().StringVar(&host, "host", "", "host name for nvidia-smi files and CSV rows without a host (default: the file name)")
	return cmd
}

// byteProgress is a progress bar over the size bytes of the file called name, on stderr.
func (e *env) byteProgress(name string, size int64) teleimport.Progress {
	return e.progress(size, name, true)
}
