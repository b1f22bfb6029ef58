package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/notify"
	"github.com/gpucost/gpucost/sqlite"
)

// gt0 is when the GPU alert tests' data starts.
var gt0 = time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)

// idleRule fires when a GPU's utilisation stays under 40% for 10 minutes.
func idleRule(onNoData bool) analyze.Rule {
	return analyze.Rule{Name: "gpu_idle", Severity: analyze.SeverityWarning, Summary: "GPU idle", Metric: analyze.MetricUtil,
		Threshold: 40, For: 10 * time.Minute, AlertOnNoData: onNoData}
}

// recorder is a webhook target that keeps the messages it is sent.
type recorder struct {
	mu   sync.Mutex
	msgs []notify.Message
}

func (h *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var m notify.Message
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &m); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.msgs = append(h.msgs, m)
	h.mu.Unlock()
}

func (h *recorder) received() []notify.Message {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]notify.Message(nil), h.msgs...)
}

// gpuAlertFixture is a store, a webhook target and the GPU alert checks over them.
type gpuAlertFixture struct {
	st   gpucost.Store
	hook *recorder
	o    Options
}

func newGPUAlertFixture(t testing.TB, rules []analyze.Rule, cfg GPUAlerts) *gpuAlertFixture {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "gpucost.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	hook := &recorder{}
	srv := httptest.NewServer(hook)
	t.Cleanup(srv.Close)
	o := Options{AlertRules: rules, GPUAlerts: cfg, Targets: map[string]notify.Target{"ops": &notify.Webhook{URL: srv.URL, Secret: "k"}},
		Log: slog.New(slog.DiscardHandler)}
	return &gpuAlertFixture{st: st, hook: hook, o: o}
}

// checks returns a check as a server starting now would run it.
func (f *gpuAlertFixture) checks(t testing.TB) *gpuAlerts {
	t.Helper()
	o := f.o
	o.defaults()
	a := newGPUAlerts(f.st, o)
	if a == nil {
		t.Fatal("newGPUAlerts with targets and rules = nil")
	}
	return a
}

// checkAt runs a's check with its clock at now.
func checkAt(t testing.TB, a *gpuAlerts, now time.Time) {
	t.Helper()
	a.now = func() time.Time { return now } // the delivery log's times too
	if err := a.check(context.Background(), now); err != nil {
		t.Fatalf("check at %s: %v", now.Format("15:04"), err)
	}
}

// write stores minute rollups of GPU index on node-a from minute from (of gt0) for n minutes,
// each at util(minute).
func (f *gpuAlertFixture) write(t testing.TB, index, from, n int, util func(m int) float64) {
	t.Helper()
	s := &gpucost.Series{GPU: gpucost.GPU{UUID: fmt.Sprintf("GPU-%d", index), Host: "node-a", Model: "NVIDIA A100-SXM4-80GB", Index: index}}
	var rs []gpucost.Rollup
	for m := from; m < from+n; m++ {
		u := util(m)
		rs = append(rs, gpucost.Rollup{Series: s, Start: gt0.Add(time.Duration(m) * time.Minute), Width: time.Minute,
			Samples: 1, Coverage: 1, UtilSum: u, UtilMax: u, UtilP50: u, UtilP95: u, TempMaxC: 50})
	}
	if _, err := f.st.WriteRollups(context.Background(), rs); err != nil {
		t.Fatal(err)
	}
}

func idle(int) float64 { return 5 }
func busy(int) float64 { return 90 }

// at returns gt0 plus m minutes.
func at(m int) time.Time { return gt0.Add(time.Duration(m) * time.Minute) }

func kinds(msgs []notify.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Kind+": "+m.Subject)
	}
	return out
}

// TestGPUAlertsGrouped: three GPUs going idle together send one message naming two and "1
// more", however many checks see them; a GPU flapping within the rule's For, an episode longer
// than the window and a server restarted during it send nothing more; a fourth GPU going idle
// later is one message of its own.
func TestGPUAlertsGrouped(t *testing.T) {
	f := newGPUAlertFixture(t, []analyze.Rule{idleRule(false)}, GPUAlerts{MaxGPUs: 2})
	const long = 8 * 60 // minutes of data: longer than the 6h window
	flap := func(m int) float64 {
		if m == 40 || m == 41 {
			return 90 // two busy minutes, then idle again: within the 10m For
		}
		return 5
	}
	f.write(t, 0, 0, long, idle)
	f.write(t, 1, 0, long, flap)
	f.write(t, 2, 0, long, idle)
	f.write(t, 3, 0, 60, busy)
	f.write(t, 3, 60, long-60, idle)
	f.write(t, 4, 0, long, busy)
	a := f.checks(t)
	for _, m := range []int{5, 15, 25, 45, 55} {
		checkAt(t, a, at(m))
	}
	got := f.hook.received()
	if len(got) != 1 {
		t.Fatalf("the webhook got %d messages over five checks; want 1: %v", len(got), kinds(got))
	}
	m := got[0]
	if m.Kind != kindGPUFiring || m.Subject != "GPU alert gpu_idle firing on 3 GPUs" || m.Severity != notify.SeverityWarning {
		t.Errorf("message kind %q subject %q severity %q; want %s, \"GPU alert gpu_idle firing on 3 GPUs\", warning", m.Kind, m.Subject, m.Severity, kindGPUFiring)
	}
	for _, want := range []string{"node-a GPU 0 (NVIDIA A100-SXM4-80GB): GPU util (1-min mean) below 40%", "- and 1 more"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("message text lacks %q:\n%s", want, m.Text)
		}
	}
	for _, m := range []int{75, 6 * 60, long - 1} {
		checkAt(t, a, at(m))
	}
	restarted := f.checks(t)
	checkAt(t, restarted, at(long))
	got = f.hook.received()
	if len(got) != 2 || got[1].Subject != "GPU alert gpu_idle firing on 1 GPU" || !strings.Contains(got[1].Text, "node-a GPU 3") {
		t.Fatalf("after GPU 3 went idle, the window slid past the start and the server restarted, the webhook got %v; want one more message, for GPU 3", kinds(got))
	}
}

// TestGPUAlertsNoData: a GPU whose data stops sends one "no data" message under a rule with
// alert_on_no_data, none without it, and never "resolved", even with Resolved on; a firing
// episode whose data stops sends its firing message, then no data only with alert_on_no_data.
func TestGPUAlertsNoData(t *testing.T) {
	for _, c := range []struct {
		name     string
		onNoData bool
		util     func(int) float64
		want     []string
	}{
		{"busy, alert_on_no_data", true, busy, []string{kindGPUNoData + ": GPU alert gpu_idle no data from 1 GPU"}},
		{"busy", false, busy, nil},
		{"idle, alert_on_no_data", true, idle, []string{kindGPUFiring + ": GPU alert gpu_idle firing on 1 GPU",
			kindGPUNoData + ": GPU alert gpu_idle no data from 1 GPU"}},
		{"idle", false, idle, []string{kindGPUFiring + ": GPU alert gpu_idle firing on 1 GPU"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newGPUAlertFixture(t, []analyze.Rule{idleRule(c.onNoData)}, GPUAlerts{Resolved: true})
			f.write(t, 0, 0, 30, c.util) // then nothing
			a := f.checks(t)
			for _, m := range []int{25, 30, 35, 41, 50, 90, 8 * 60} {
				checkAt(t, a, at(m))
			}
			got := kinds(f.hook.received())
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("the webhook got %q; want %q", got, c.want)
			}
		})
	}
}

// TestGPUAlertsResolved: with Resolved, an episode that ends sends one "resolved" message once
// its rule's For has passed without the condition back; without it, none. A rule with notify:
// false (Quiet) sends nothing at all.
func TestGPUAlertsResolved(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  GPUAlerts
		want []string
	}{
		{"resolved on", GPUAlerts{Resolved: true}, []string{kindGPUFiring + ": GPU alert gpu_idle firing on 1 GPU",
			kindGPUResolved + ": GPU alert gpu_idle resolved on 1 GPU"}},
		{"resolved off", GPUAlerts{}, []string{kindGPUFiring + ": GPU alert gpu_idle firing on 1 GPU"}},
		{"quiet", GPUAlerts{Resolved: true, Quiet: map[string]bool{"gpu_idle": true, "other": false}}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newGPUAlertFixture(t, []analyze.Rule{idleRule(false), {Name: "other", Metric: analyze.MetricTemp, Above: true, Threshold: 99}}, c.cfg)
			f.write(t, 0, 0, 30, idle)
			f.write(t, 0, 30, 60, busy)
			a := f.checks(t)
			for _, m := range []int{20, 31, 35, 45, 60, 89} {
				checkAt(t, a, at(m))
			}
			got := kinds(f.hook.received())
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("the webhook got %q; want %q", got, c.want)
			}
		})
	}
}

// TestGPUAlertsShortEpisode: an episode that fires and resolves between two checks is sent as
// firing by the second, once; a server started after it sends nothing of it.
func TestGPUAlertsShortEpisode(t *testing.T) {
	f := newGPUAlertFixture(t, []analyze.Rule{idleRule(false)}, GPUAlerts{})
	f.write(t, 0, 0, 15, idle) // fires at minute 10, resolves at 15
	f.write(t, 0, 15, 60, busy)
	checkAt(t, f.checks(t), at(30))
	if got := f.hook.received(); len(got) != 0 {
		t.Fatalf("a server started after the episode sent %q; want nothing", kinds(got))
	}
	a := f.checks(t)
	for _, m := range []int{5, 20, 35, 50} {
		checkAt(t, a, at(m))
	}
	got := f.hook.received()
	if len(got) != 1 || got[0].Kind != kindGPUFiring || !strings.Contains(got[0].Text, "for 15m, from 2026-11-20 08:00 UTC to 2026-11-20 08:15 UTC") {
		t.Errorf("checks at 5 and 20 minutes around a 10–15 minute firing sent %q; want one firing message saying when it held", kinds(got))
	}
}

// TestNewGPUAlertsOff: no GPU alert check runs without targets, when turned off, or when every
// rule is quiet.
func TestNewGPUAlertsOff(t *testing.T) {
	targets := map[string]notify.Target{"ops": &notify.Webhook{URL: "http://127.0.0.1:1"}}
	for name, o := range map[string]Options{
		"no targets": {},
		"off":        {Targets: targets, GPUAlerts: GPUAlerts{Off: true}},
		"all quiet":  {Targets: targets, AlertRules: []analyze.Rule{idleRule(false)}, GPUAlerts: GPUAlerts{Quiet: map[string]bool{"gpu_idle": true}}},
	} {
		if a := newGPUAlerts(nil, o); a != nil {
			t.Errorf("newGPUAlerts(%s) = a check; want none", name)
		}
	}
}

// BenchmarkGPUAlertCheck is one check over 80 idle GPUs' 6 hours of minute rollups, all 80
// episodes already sent: the scan, the evaluation and a delivery log lookup per episode.
func BenchmarkGPUAlertCheck(b *testing.B) {
	f := newGPUAlertFixture(b, []analyze.Rule{idleRule(false)}, GPUAlerts{})
	const minutes = 6 * 60
	for i := range 80 {
		f.write(b, i, 0, minutes, idle)
	}
	a := f.checks(b)
	checkAt(b, a, at(minutes))
	if len(f.hook.received()) != 1 {
		b.Fatalf("the first check sent %d messages; want 1", len(f.hook.received()))
	}
	b.ResetTimer()
	for range b.N {
		if err := a.check(context.Background(), at(minutes)); err != nil {
			b.Fatal(err)
		}
	}
}
