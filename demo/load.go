package demo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/focus"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/telemetry"
)

// Version names the demo fleet's definition; a store holding another is rebuilt.
const Version = "3"

// settingKey is the store setting that names the demo load a store holds.
const settingKey = "demo_fleet"

// Load is one load of the demo fleet: its telemetry and bill for the Days before End.
type Load struct {
	End  time.Time
	Days int
}

// From is when the load's telemetry starts.
func (l Load) From() time.Time { return l.End.Add(-time.Duration(l.Days) * 24 * time.Hour) }

// stamp names the load in the store's settings: the fleet's Version, End and Days.
func (l Load) stamp() string {
	return Version + " " + l.End.Format(time.RFC3339) + " " + strconv.Itoa(l.Days)
}

// Loaded reports whether db holds this load already, of this Version of the fleet.
func (l Load) Loaded(ctx context.Context, db gpucost.SettingStore) (bool, error) {
	have, err := db.Setting(ctx, settingKey, "")
	return err == nil && have == l.stamp(), err
}

// MarkLoaded records in db that it holds this load, once all of it is stored.
func (l Load) MarkLoaded(ctx context.Context, db gpucost.SettingStore) error {
	return db.SetSetting(ctx, settingKey, l.stamp())
}

// TelemetryStats is what storing a load's telemetry did.
type TelemetryStats struct {
	Samples  int // samples written
	Rollups  int // rollups written (new, merged or replaced)
	Repeated int // rollups the store held already
}

// ImportTelemetry writes the fleet's samples of the load into w, one scrape a minute, and closes
// w; hour is called at the start of each hour after the first. They are the samples, in the
// order, that gpucost import telemetry reads from the load's dcgm-exporter text (WriteScrapes),
// so the store holds what that import would store (TestImportTelemetryIsTheImportPath); the demo
// skips writing and parsing 17 M lines of text. The next hour's samples are made while w writes
// the last. A skipped sample is an error: the demo makes none.
func (l Load) ImportTelemetry(ctx context.Context, w *telemetry.Writer, fleet []Instance, hour func()) (TelemetryStats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	hours := make(chan []gpucost.Sample, 1)
	spent := make(chan []gpucost.Sample, 2)
	spent <- nil
	spent <- nil
	go func() {
		defer close(hours)
		sc := newScraper(fleet)
		for at := l.From(); at.Before(l.End); {
			var buf []gpucost.Sample
			select {
			case buf = <-spent:
			case <-ctx.Done():
				return
			}
			buf = buf[:0]
			end := at.Truncate(time.Hour).Add(time.Hour)
			if end.After(l.End) {
				end = l.End
			}
			for ; at.Before(end); at = at.Add(time.Minute) {
				buf = sc.scrape(buf, at)
			}
			select {
			case hours <- buf:
			case <-ctx.Done():
				return
			}
		}
	}()
	var st TelemetryStats
	first := true
	for buf := range hours {
		if !first {
			hour()
		}
		first = false
		if err := w.Add(ctx, buf...); err != nil {
			return st, fmt.Errorf("load the demo fleet: %w", err)
		}
		st.Samples += len(buf)
		spent <- buf
	}
	if err := w.Close(ctx); err != nil {
		return st, fmt.Errorf("load the demo fleet: %w", err)
	}
	if n := w.Skipped(); n > 0 {
		return st, fmt.Errorf("load the demo fleet: %d samples skipped, first: %v", n, w.Skips()[0])
	}
	ws := w.Stats()
	st.Rollups, st.Repeated = ws.Written+ws.Merged+ws.Replaced, ws.Unchanged
	return st, nil
}

// GPUs counts the fleet's GPUs.
func GPUs(fleet []Instance) int {
	n := 0
	for _, in := range fleet {
		n += in.GPUs
	}
	return n
}

// Files are the files the demo writes for people to open: the FOCUS bill, the serving pool's
// requests and its --serving file, and the budgets the dashboard shows.
type Files struct {
	Bill, Requests, Serving, Budgets string
	Jobs                             string // the folder of the spot jobs' events (report spot --store)
}

// FilesAt names the demo's files by base, a path without extension: base-bill.focus.csv,
// base-requests.csv, base-serving.yaml and base-budgets.yaml.
func FilesAt(base string) Files {
	return Files{Bill: base + "-bill.focus.csv", Requests: base + "-requests.csv", Jobs: base + "-jobs",
		Serving: base + "-serving.yaml", Budgets: base + "-budgets.yaml"}
}

// billRegion is the region whose on-demand prices the demo's bill charges.
const billRegion = "us-east-1"

// WriteBill writes the fleet's AWS bill of the load as a FOCUS 1.2 CSV file at path, each
// instance-hour at the on-demand price of its type in us-east-1 in the catalog of store (the
// bundled one overlaid with the store's offers).
func (l Load) WriteBill(ctx context.Context, store gpucost.OfferStore, path string, fleet []Instance) error {
	cat, err := catalog.Load(ctx, store)
	if err != nil {
		return err
	}
	offers := cat.Offers()
	price := func(instanceType string) (gpucost.Money, bool) {
		for _, o := range offers {
			if o.Provider == "aws" && o.Region == billRegion && o.InstanceType == instanceType && o.HasOnDemand {
				return o.OnDemand, true
			}
		}
		return gpucost.Money{}, false
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write the demo bill: %w", err)
	}
	defer f.Close()
	w, err := focus.NewWriter(f, focus.WriterOptions{Format: focus.CSV})
	if err != nil {
		return err
	}
	if err := Bill(fleet, l.From(), l.End, price, w.Write); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("write the demo bill: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write the demo bill: %w", err)
	}
	return nil
}

// The serving pool's requests follow its utilisation: each of its GPUs is one replica serving
// one request at a time in ServiceTime, so requests a second = Σ utilisation ÷ ServiceTime —
// 40 A100s at 35% in the afternoon serve 350 a second.
const (
	ServiceTime      = 40 * time.Millisecond // a chat model's mean time per request on one A100
	ServingSLO       = "p99=200ms"
	ServingNamespace = "serving"
)

// WriteServing writes the serving pool's requests a second for each minute of the load to
// f.Requests as a timestamp,rate CSV, and f.Serving, a --serving file for gpucost recommend
// that names it.
func (l Load) WriteServing(f Files, fleet []Instance) error {
	out, err := os.Create(f.Requests)
	if err != nil {
		return fmt.Errorf("write the demo serving requests: %w", err)
	}
	defer out.Close()
	if err := ServingRates(out, fleet, ServingNamespace, ServiceTime, l.From(), l.End); err != nil {
		return fmt.Errorf("write the demo serving requests %s: %w", f.Requests, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("write the demo serving requests %s: %w", f.Requests, err)
	}
	yaml := fmt.Sprintf(`# The demo's serving pool for gpucost recommend --serving: its requests follow its GPUs'
# utilisation at %v a request on one A100 per replica.
pools:
  - namespace: %s
    slo: %s
    service_time: %v
    concurrency: 1
    gpus_per_replica: 1
    requests: %s
`, ServiceTime, ServingNamespace, ServingSLO, ServiceTime, filepath.Base(f.Requests))
	if err := os.WriteFile(f.Serving, []byte(yaml), 0o644); err != nil {
		return fmt.Errorf("write the demo serving pools: %w", err)
	}
	return nil
}

// WriteBudgets writes Budgets to path, for the dashboard gpucost demo serves.
func WriteBudgets(path string) error {
	if err := os.WriteFile(path, []byte(Budgets), 0o644); err != nil {
		return fmt.Errorf("write the demo budgets: %w", err)
	}
	return nil
}

// TokenName names the admin token gpucost demo makes for the browser; NewToken revokes the
// earlier ones, so a demo store holds one valid demo token.
const TokenName = "demo-dashboard"

// NewToken revokes the earlier demo tokens in db and creates a new admin token at now,
// returning its secret.
func NewToken(ctx context.Context, db gpucost.TokenStore, now time.Time) (string, error) {
	toks, err := db.Tokens(ctx)
	if err != nil {
		return "", err
	}
	for _, t := range toks {
		if t.Name == TokenName && t.Revoked.IsZero() {
			if err := db.RevokeToken(ctx, t.ID, now); err != nil {
				return "", err
			}
		}
	}
	secret, err := gpucost.NewTokenSecret()
	if err != nil {
		return "", err
	}
	_, err = db.CreateToken(ctx, gpucost.Token{Name: TokenName, Role: gpucost.RoleAdmin, Created: now}, gpucost.HashTokenSecret(secret))
	return secret, err
}
