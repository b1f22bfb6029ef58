package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
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

// importTelemetryHelp is import telemetry's --help: the formats it reads.
var importTelemetryHelp = `telemetry reads recorded GPU telemetry and stores its minute and hourly rollups, the same way
the agent does. dcgm files hold one or more /metrics scrapes; sample lines carry the
exposition format's millisecond timestamps, and lines without one take --at (default: the
file's modification time). nvidia-smi files hold the output of
  ` + nvidiasmi.RecordCommand + `
with or without the header line (--format=csv) and units; ",mig.mode.current" may follow the
fields. With a header line the columns may be any --query-gpu fields that include timestamp
and uuid or index; a recording of one GPU whose query had neither (such as
--query-gpu=timestamp,utilization.gpu,memory.used,power.draw,temperature.gpu) needs --gpu,
the GPU's UUID or index.

nvidia-smi-xml files hold nvidia-smi -q -x output, one report or those of -q -x -l N: a
sample per GPU at each report's <timestamp> (utilisation, memory, power draw, temperature),
and one per MIG instance, which reports memory only. nvidia-smi-pmon files hold nvidia-smi pmon output: each interval is a
sample per GPU whose utilisation is its processes' SM % summed, capped at 100 (a "-" adds
nothing; an interval where every process shows "-" has no utilisation and is skipped). pmon
names GPUs by index only: they are stored as gpu0, gpu1 … of --host. Record it with -o DT,
so that every line has its date and time; output without them needs --start, the time of its
first interval, and --interval, pmon's -d (default 1s); -o T output needs --start for its
date. nvidia-smi writes the host's local time: record on hosts whose clock is in UTC, as
gpucost reads nvidia-smi's times as UTC.

Bad lines of dcgm and nvidia-smi files are reported with file and line and skipped; the rest
is stored. Importing the same file again stores nothing twice.

--price sets the on-demand price of a GPU-hour of the samples' model, in USD: the model of
--model, or the one model the files name (files of several models, or of none, need --model).
It is kept in the store as a user price, which every report uses in place of the catalog's
price of that model (a bill line still prices the hours it covers), and gpucost catalog gpus
lists it with its source; importing with another --price replaces it.

` + csvtelemetry.Doc + `

A CSV file util.csv such as
  ` + strings.ReplaceAll(csvExample, "\n", "\n  ") + `
is imported with
  gpucost import telemetry --format csv util.csv`

func newImportTelemetryCmd(e *env) *cobra.Command {
	var (
		format string
		at     string
		host   string
		model  string
		gpu    string
		start  string
		step   time.Duration
		price  string
	)
	cmd := &cobra.Command{
		Use:   "telemetry FILE...",
		Short: "Import recorded dcgm-exporter or nvidia-smi output, or a telemetry CSV file",
		Long:  importTelemetryHelp,
		Example: `  gpucost import telemetry --format dcgm scrapes/*.prom
  gpucost import telemetry --format dcgm --at 2026-11-01T10:00:00Z one-scrape.prom
  gpucost import telemetry --format nvidia-smi --host gpu-node-7 smi.csv
  gpucost import telemetry --format nvidia-smi --gpu GPU-394b5914-a0f6-bd86-685c-15226d72588b one-gpu.csv
  gpucost import telemetry --format nvidia-smi-xml --host gpu-node-7 smi-q.xml
  gpucost import telemetry --format nvidia-smi-pmon --host gpu-node-7 --start 2026-11-27T04:11:00Z pmon.txt
  gpucost import telemetry --format csv --host trace-cluster trace.csv
  gpucost import telemetry --format dcgm --model "NVIDIA L40S" scrapes/*.prom
  gpucost import telemetry --format dcgm --price 0.76 workstation-ada.prom`,
		Args: cobra.MinimumNArgs(1),
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			o := teleimport.Options{Host: host, Model: model, GPU: gpu, Interval: step}
			var err error
			if o.Format, err = teleimport.ParseFormat(format); err != nil {
				return result{}, err
			}
			if err := firstError(durNotNegative("interval", step), teleimport.CheckFlags(o.Format, cmd.Flags().Changed)); err != nil {
				return result{}, err
			}
			if start != "" {
				if o.Start, err = time.Parse(time.RFC3339, start); err != nil {
					return result{}, gpucost.Errorf(gpucost.EInvalid, "--start %q: use RFC 3339, such as 2026-11-01T10:00:00Z", start)
				}
			}
			if at != "" {
				if o.At, err = time.Parse(time.RFC3339, at); err != nil {
					return result{}, gpucost.Errorf(gpucost.EInvalid, "--at %q: use RFC 3339, such as 2026-11-01T10:00:00Z", at)
				}
			}
			var userPrice *gpucost.Offer
			if cmd.Flags().Changed("price") {
				p, err := importPrice(price, model, args, o, e.now())
				if err != nil {
					return result{}, err
				}
				userPrice = &p
			}
			return fromStore(cmd.Context(), e, func(db storeDB) (result, error) {
				im := &teleimport.Importer{
					Writer:   func(ctx context.Context) (*telemetry.Writer, error) { return e.rollupWriter(ctx, db) },
					Progress: e.byteProgress,
				}
				res, err := shown(present.TelemetryImports)(im.ImportFiles(cmd.Context(), args, o))
				if err != nil || userPrice == nil {
					return res, err
				}
				if _, _, err := db.PutOffers(cmd.Context(), []gpucost.Offer{*userPrice}); err != nil {
					return res, err
				}
				res.Notes = append(res.Notes, fmt.Sprintf("A GPU-hour of %s is priced at %s in reports from now on (a user price; gpucost catalog gpus lists it).",
					userPrice.GPUModel, userPrice.OnDemand.Dollars()))
				return res, nil
			})
		}),
	}
	cmd.Flags().StringVar(&format, "format", "dcgm", "file format: dcgm, nvidia-smi, nvidia-smi-xml, nvidia-smi-pmon or csv")
	cmd.Flags().StringVar(&at, "at", "", "time of samples without a timestamp (RFC 3339; default the file's modification time)")
	cmd.Flags().StringVar(&model, "model", "", `GPU model of every sample, for recordings without a name column or with a name the catalog does not know (such as "NVIDIA A100-SXM4-40GB")`)
	cmd.Flags().StringVar(&host, "host", "", "host of nvidia-smi, -q -x and pmon recordings and of CSV rows without a host (default: the file name)")
	cmd.Flags().StringVar(&price, "price", "", "USD per GPU-hour of the samples' model, used by every report in place of the catalog's price (see above)")
	cmd.Flags().StringVar(&gpu, "gpu", "", "nvidia-smi: the GPU (UUID or index) of a recording whose query has no uuid or index column")
	cmd.Flags().StringVar(&start, "start", "", "nvidia-smi-pmon: the time of the first interval of output without -o DT (RFC 3339)")
	cmd.Flags().DurationVar(&step, "interval", 0, "nvidia-smi-pmon: the time between intervals of output without a time column, pmon's -d (default 1s)")
	return cmd
}

// importPrice is the user price --price sets for the model of the files at paths: model, or
// the one model their samples name (teleimport.OneModel).
func importPrice(price, model string, paths []string, o teleimport.Options, now time.Time) (gpucost.Offer, error) {
	m, err := gpucost.ParseMoney(strings.TrimSpace(price), "USD")
	if err != nil || m.Nanos < 0 {
		return gpucost.Offer{}, gpucost.Errorf(gpucost.EInvalid, "--price %q: give USD per GPU-hour as a plain decimal, such as 0.76", price)
	}
	if model == "" {
		if model, err = teleimport.OneModel(paths, o); err != nil {
			return gpucost.Offer{}, err
		}
	}
	return catalog.UserPrice(model, m, now, "gpucost import telemetry --price "+strings.TrimSpace(price)), nil
}

// byteProgress is a progress bar over the size bytes of the file called name, on stderr.
func (e *env) byteProgress(name string, size int64) teleimport.Progress {
	return e.progress(size, name, true)
}
