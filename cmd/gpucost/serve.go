package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/internal/storeopen"
	"github.com/gpucost/gpucost/notify"
	"github.com/gpucost/gpucost/server"
	"github.com/gpucost/gpucost/telemetry"
	"github.com/gpucost/gpucost/telemetry/wal"
	"github.com/spf13/cobra"
)

// defaultViewsEvery is how long a computed view is served before it is computed again.
const defaultViewsEvery = server.DefaultViewsEvery

// serveOptions are gpucost serve's settings.
type serveOptions struct {
	listen      string
	flush       time.Duration // between writes of ingested samples to the store
	keepMinutes time.Duration

	budgets    string        // --budgets: a budgets file, which wins over budgets stored through the API
	jobsStore  string        // --jobs-store: where gpucost run keeps spot job events
	natsURL    string        // --nats: the work queues' NATS server
	viewsEvery time.Duration // --views-every: how long a computed view is served
	maxBill    int64         // --max-bill-size, bytes
	wal        string        // --wal: the write-ahead log of pushed samples; "" beside the store, "off" for none

	targetsFile string                   // --targets: where budget alerts go
	targets     map[string]notify.Target // read from targetsFile
	checkEvery  time.Duration            // --check-every: between budget checks

	enforce serveEnforceOptions // --policies, --apply and the inventory flags: enforcement after each budget check

	security serveSecurityOptions // rate limits, the login throttle, --tls-cert/--tls-key and --trusted-proxy

	pull servePullOptions // --pull-bills and --pull-every: bills pulled from where they land

	alerts serveAlertOptions // --rules, --alert-on-no-data: the alert rules, and the interruption rule over --jobs-store
}

func newServeCmd(e *env) *cobra.Command {
	o := serveOptions{viewsEvery: defaultViewsEvery, maxBill: httpapi.DefaultMaxBill}
	var maxBill string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the gpucost server: the dashboard, the API agents push to, budget alerts",
		Long:  serveHelp,
		Example: `  gpucost serve --db /var/lib/gpucost/gpucost.db --listen 0.0.0.0:8080
  gpucost serve --db postgres://gpucost:PASSWORD@db.internal:5432/gpucost --listen 0.0.0.0:8080
  gpucost token create --name node-1 --role ingest   # then on the GPU host:
  GPUCOST_TOKEN=gpc_… gpucost agent --server http://gpucost:8080
  gpucost serve --budgets budgets.yaml --targets targets.yaml --check-every 15m
  gpucost serve --pull-bills sources.yaml --targets targets.yaml --pull-every 6h
  gpucost serve --jobs-store s3://my-bucket/jobs --targets targets.yaml --rules examples/alerts/rules.yaml   # spot interruption alerts
  gpucost serve --budgets budgets.yaml --targets targets.yaml --policies policies.yaml --aws-region us-east-1 --apply
  gpucost token create --name alice --role viewer    # then sign in at http://HOST:8080/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			ctx := cmd.Context()
			if err := o.checkFlags(); err != nil {
				return err
			}
			if o.maxBill, err = server.ParseSize(maxBill); err != nil {
				return gpucost.Errorf(gpucost.EInvalid, "--max-bill-size %q: %w", maxBill, err)
			}
			if err := o.security.load(); err != nil {
				return err
			}
			if err := o.pull.load(); err != nil {
				return err
			}
			if err := o.alerts.load(); err != nil {
				return err
			}
			if o.budgets != "" {
				if _, err := budget.ReadFile(o.budgets); err != nil {
					return err
				}
			}
			if o.targets, err = e.loadTargets(o.targetsFile); err != nil {
				return err
			}
			db, err := e.openDB(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			ln, err := net.Listen("tcp", o.listen)
			if err != nil {
				return gpucost.Errorf(gpucost.EUnavailable, "--listen %s: %w", o.listen, err)
			}
			return e.serve(ctx, db, ln, o)
		},
	}
	cmd.Flags().StringVar(&o.listen, "listen", "127.0.0.1:8080", "address to serve on")
	cmd.Flags().DurationVar(&o.flush, "flush", defaultServeFlush, "time between writes of pushed samples to the store")
	cmd.Flags().DurationVar(&o.keepMinutes, "keep-minutes", telemetry.DefaultMinuteRetention, "how long to keep minute rollups (hourly rollups are kept)")
	cmd.Flags().StringVar(&o.budgets, "budgets", "", "budgets YAML file; wins over budgets stored with PUT /api/v1/budgets")
	cmd.Flags().StringVar(&o.jobsStore, "jobs-store", "", "where gpucost run keeps spot job events (s3://BUCKET/PREFIX, file://PATH or a directory), for /api/v1/jobs and, with --targets, the interruption alerts")
	cmd.Flags().StringVar(&o.natsURL, "nats", "", "the work queues' NATS server (nats://HOST:4222), for /api/v1/queues")
	cmd.Flags().DurationVar(&o.viewsEvery, "views-every", defaultViewsEvery, "compute each report view from the store at most once per this, per distinct query (0: on every request)")
	cmd.Flags().StringVar(&o.wal, "wal", "", "directory of the write-ahead log that makes a 200 to pushed samples survive a crash (default: beside the SQLite file, or in the data directory for PostgreSQL; off: none)")
	cmd.Flags().StringVar(&maxBill, "max-bill-size", "2GiB", "largest bill POST /api/v1/bills takes as sent (streamed to a temporary file)")
	cmd.Flags().StringVar(&o.targetsFile, "targets", "", "notification targets YAML file (as gpucost budget check takes): check the budgets every --check-every and alert")
	cmd.Flags().DurationVar(&o.checkEvery, "check-every", 15*time.Minute, "time between budget checks, with --targets (and enforcement runs, with --policies)")
	o.enforce.add(cmd)
	o.security.add(cmd)
	o.pull.add(cmd)
	o.alerts.add(cmd)
	return cmd
}

// serve serves the API on ln over db until ctx is done (server.Run), then writes every sample
// held. Tests call it with a listener on port 0.
func (e *env) serve(ctx context.Context, db storeDB, ln net.Listener, o serveOptions) error {
	so, err := e.serverOptions(db, o)
	if err != nil {
		ln.Close()
		return err
	}
	return server.Run(ctx, db, ln, so)
}

// serverOptions turns the serve command's options into the server's: the write-ahead log's
// folder and the SQLite file's, the enforcement the flags configure, the clock and the log.
func (e *env) serverOptions(db storeDB, o serveOptions) (server.Options, error) {
	enf, err := o.enforce.enforcement(e, db, o.targets)
	if err != nil {
		return server.Options{}, err
	}
	so := server.Options{Flush: o.flush, KeepMinutes: o.keepMinutes, ViewsEvery: o.viewsEvery, MaxBill: o.maxBill,
		WALDir: e.walDir(o.wal, db), BudgetsFile: o.budgets, Targets: o.targets, TargetsFile: o.targetsFile,
		CheckEvery: o.checkEvery, Enforce: enf, Security: o.security.security(), JobsStore: o.jobsStore, NATSURL: o.natsURL,
		OpenObjectStore: func(ctx context.Context, url string) (gpucost.ObjectStore, error) {
			return openObjectStore(ctx, e, url)
		},
		Now: e.now, Log: slog.New(slog.NewTextHandler(e.stderr, nil))}
	if !storeopen.IsPostgres(e.dbPath) && e.dbPath != "" {
		so.StoreDir = filepath.Dir(e.dbPath)
	}
	o.pull.apply(e, &so)
	o.alerts.apply(e, db, o.jobsStore, &so)
	return so, nil
}

// serveHelp is the command's --help text.
const serveHelp = `serve runs gpucost's HTTP API over the store named by --db: a SQLite file, or a
postgres:// (or postgresql://) URL for a PostgreSQL database that several server replicas
share (pool size and timeouts as URL parameters, such as ?pool_max_conns=20). Agents push samples with
gpucost agent --server URL and an ingest token (gpucost token create --role ingest); the
samples are rolled up and written every --flush, and on shutdown. A push is answered 200 only
once its samples are on disk in a write-ahead log (--wal DIR; by default FILE.ingest-wal beside
the SQLite file, or under the data directory for PostgreSQL; each replica needs its own), which
is replayed on start: an acknowledged sample survives a crash. /healthz and /readyz need
no token; /api/openapi.json describes every endpoint. /metrics serves Prometheus metrics to a
viewer token: the server's health, and GPU-hours and idle per namespace over the last hour and
month-to-date cost per team, computed from the store at most once a minute.

The read API (GET /api/v1/overview, gpus, utilization, costs, allocations, idle, alerts,
recommendations, budgets, jobs, queues; a viewer token) computes the reports with the code of
gpucost report, recommend and budget status. Each view is computed from the store at most once
per --views-every for each distinct query (the last 128 are kept), so the dashboard and API
clients may ask often; a bill upload or a budgets change shows at once. Jobs come from
--jobs-store, queues from --nats; without them those lists are empty.

Bills are uploaded to POST /api/v1/bills?name=FILE (an ingest token): FOCUS, AWS CUR 2.0, GCP
or Azure exports, CSV or gzip CSV (or JSON lines, Parquet), up to --max-bill-size as sent,
imported whole or not at all as gpucost import billing does; the same file again is a no-op.
Budgets are those of --budgets FILE when given, else those an admin token PUTs to
/api/v1/budgets (kept in the store, so every replica sees them). With --targets, the server
checks them every --check-every as gpucost budget check does and alerts each crossed threshold's
targets once per period through the store's delivery log; a slow or failing target delays only
the next check, never ingest or the API.

With --policies (as gpucost enforce takes), the server also evaluates the policies after each
budget check, every --check-every, against those budgets and the inventory of --aws-region and
--kube-server, and runs their actions: as a dry run (logged as planned, nothing changed) unless a
policy says dry_run: false AND --apply is given. Every action is logged with its rule and
evidence in the store (GET /api/v1/actions, gpucost enforce log; a dry run planning the same
action again is logged once); a cloud API that cannot be reached is logged and tried again on
the next check, never stopping the server. Alert attempts are at GET /api/v1/deliveries.

With --jobs-store and --targets, the server also checks every --check-every the interruption
rate of each spot pool the jobs ran in, as gpucost report spot does (25% of instances in 6 h by
default), and alerts every target once per episode, naming the jobs hit and lower-risk pools to
move to. --rules FILE (as gpucost report alerts takes) sets that rule's threshold and window
and the GPU alert rules of /api/v1/alerts and the dashboard.

With --targets, the server also evaluates the GPU alert rules every --check-every over the
last 6 hours of minute rollups and sends each episode (a rule on one GPU from its first firing
minute; a flap within the rule's for is the same episode) once per target as it starts firing,
and once as it goes no data under a rule with alert_on_no_data; a GPU that stops reporting is
never "resolved". GPUs firing one rule together are one message naming up to 10 and how many
more. --notify-resolved adds one message when a sent episode resolves; notify: false on a rule
in --rules keeps it out; --notify-gpu-alerts=false sends none.

With --pull-bills FILE, the server pulls the bills of the sources the file lists (s3://,
gs://, azure:// prefixes where AWS Data Exports, Azure cost exports or a BigQuery export land;
docs/bill-sources.md) at start and every --pull-every, importing the current delivery of each
export's billing period that is new or restated, as gpucost import billing URL does. Each
source's last pull, result and error are at GET /api/v1/bill-sources, in /metrics
(gpucost_bill_pull_last_success_timestamp_seconds, gpucost_bill_pull_errors_total) and on the
activity page; a failing source alerts the --targets once, until a pull of it succeeds again.

The dashboard is served at / : overview, GPU utilisation heatmap, costs by team, project or
namespace, idle and waste, recommendations, budgets, spot jobs, and the activity of budget
alerts and enforcement. People sign in with a viewer
or admin token; the session is an HttpOnly, SameSite=Strict cookie signed with a key kept in
the store (so replicas share sessions), checked against the token on every request, and forms
carry a CSRF token. A logout is kept in the store until the session would have expired, so a
copy of its cookie is refused by every replica.

Limits: a push carries at most 50,000 samples (413 past it, or past 64 MiB of decoded samples);
each token may push --ingest-rate samples a second with a burst of --ingest-burst, and upload
--bill-rate bills an hour with a burst of --bill-burst (429 with Retry-After past them). A client
address that fails --max-auth-failures logins or token checks is refused with 429 for a while.
--tls-cert and --tls-key serve HTTPS; behind a TLS-terminating proxy, --trusted-proxy CIDR,...
makes the server believe its X-Forwarded-Proto (for Secure cookies) and X-Forwarded-For.

SIGTERM or Ctrl-C finishes the requests in flight, writes what is held and exits 0.`

// walDir returns the folder of the write-ahead log of samples pushed to db (wal.Dir).
func (e *env) walDir(flag string, db storeDB) string {
	var postgresURL string
	if storeopen.IsPostgres(e.dbPath) {
		postgresURL = e.dbPath
	}
	return wal.Dir(flag, db.File(), postgresURL, storeopen.DataHome(e.getenv))
}

// serveSecurityOptions are gpucost serve's per-token rate limits, its throttle of failed
// logins and token checks, TLS and the proxies it trusts: the flags, and what server makes of
// them once load has checked them.
type serveSecurityOptions struct {
	flags server.SecuritySettings
	sec   *server.Security // by load; nil (a serveSecurityOptions not from flags) keeps the server's defaults
}

func (o *serveSecurityOptions) add(cmd *cobra.Command) {
	f, s := cmd.Flags(), &o.flags
	f.Float64Var(&s.IngestRate, "ingest-rate", httpapi.DefaultIngestRate, "samples a second each token may push, sustained (0: no limit); past it POST /api/v1/samples answers 429")
	f.IntVar(&s.IngestBurst, "ingest-burst", httpapi.DefaultIngestBurst, "samples each token may push at once above --ingest-rate")
	f.Float64Var(&s.BillRate, "bill-rate", httpapi.DefaultBillRate, "bill uploads an hour each token may make, sustained (0: no limit)")
	f.IntVar(&s.BillBurst, "bill-burst", httpapi.DefaultBillBurst, "bill uploads each token may make at once above --bill-rate")
	f.IntVar(&s.AuthFailures, "max-auth-failures", httpapi.DefaultAuthFailures, fmt.Sprintf(
		"failed logins and token checks a source address may make before it must wait, one more every %v (0: no throttle)", httpapi.DefaultAuthFailureRefill))
	f.StringVar(&s.TLSCert, "tls-cert", "", "serve HTTPS with this PEM certificate chain (with --tls-key)")
	f.StringVar(&s.TLSKey, "tls-key", "", "the PEM private key of --tls-cert")
	f.StringVar(&s.TrustedProxies, "trusted-proxy", "", "CIDR[,CIDR] of proxies whose X-Forwarded-Proto and X-Forwarded-For are believed (a TLS-terminating load balancer)")
}

// load checks the flags and reads the TLS files (server.SecuritySettings.Security).
func (o *serveSecurityOptions) load() (err error) {
	o.sec, err = o.flags.Security()
	return err
}

// security is what the server gets: nil before load, the server's defaults.
func (o *serveSecurityOptions) security() *server.Security { return o.sec }
