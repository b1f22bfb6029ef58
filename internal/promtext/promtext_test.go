package promtext

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func TestParseSample(t *testing.T) {
	for _, c := range []struct {
		name, line string
		want       Sample
		wantErr    string
	}{
		{name: "bare", line: "up 1", want: Sample{Name: "up", Value: 1}},
		{name: "labels and time", line: `DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a"} 91 1790000000000`,
			want: Sample{Name: "DCGM_FI_DEV_GPU_UTIL", Labels: []Label{{"gpu", "0"}, {"UUID", "GPU-a"}}, Value: 91, TimestampMs: 1790000000000, HasTime: true}},
		{name: "escapes", line: `x{a="q\"b\\c\nd"} -2.5e3`, want: Sample{Name: "x", Labels: []Label{{"a", "q\"b\\c\nd"}}, Value: -2500}},
		{name: "blanks", line: "  x { a = \"1\" , }\t+Inf", want: Sample{Name: "x", Labels: []Label{{"a", "1"}}, Value: math.Inf(1)}},
		{name: "UTF-8 name", line: `{"my.metric", "a.b"="1"} 3`, want: Sample{Name: "my.metric", Labels: []Label{{"a.b", "1"}}, Value: 3}},
		{name: "bad value", line: `x abc`, wantErr: `expected float as value, got "abc"`},
		{name: "hex value", line: `x 0x1p3`, wantErr: `expected float as value, got "0x1p3"`},
		{name: "unquoted label value", line: `x{UUID=GPU-b} 1`, wantErr: `expected '"' at start of label value, found 'G'`},
		{name: "bad timestamp", line: `x 1 soon`, wantErr: `expected integer as timestamp, got "soon"`},
		{name: "spurious", line: `x 1 2 3`, wantErr: `spurious string after timestamp: " 3"`},
		{name: "reserved label", line: `x{__name__="y"} 1`, wantErr: `label name "__name__" is reserved`},
		{name: "duplicate label", line: `x{a="1",a="2"} 1`, wantErr: `duplicate label names for metric "x"`},
		{name: "bad escape", line: `x{a="\t"} 1`, wantErr: `invalid escape sequence '\t'`},
		{name: "no value", line: `x{a="1"}`, wantErr: `expected float as value, got ""`},
		{name: "no name", line: `{a="1"} 1`, wantErr: `invalid metric name`},
		{name: "garbage", line: `}}}{{ not a metric`, wantErr: `invalid metric name`},
	} {
		got, err := ParseSample(c.line, nil)
		switch {
		case c.wantErr != "" && (err == nil || err.Error() != c.wantErr):
			t.Errorf("%s: ParseSample(%q) = %v, want error %q", c.name, c.line, err, c.wantErr)
		case c.wantErr == "" && err != nil:
			t.Errorf("%s: ParseSample(%q) = %v", c.name, c.line, err)
		case c.wantErr == "" && !sameSample(got, c.want):
			t.Errorf("%s: ParseSample(%q) = %+v, want %+v", c.name, c.line, got, c.want)
		}
	}
}

func sameSample(a, b Sample) bool {
	if len(a.Labels) != len(b.Labels) {
		return false
	}
	for i := range a.Labels {
		if a.Labels[i] != b.Labels[i] {
			return false
		}
	}
	same := a.Value == b.Value || (math.IsNaN(a.Value) && math.IsNaN(b.Value))
	return a.Name == b.Name && same && a.TimestampMs == b.TimestampMs && a.HasTime == b.HasTime
}

func TestParseComment(t *testing.T) {
	for _, c := range []struct{ line, kw, name, text, wantErr string }{
		{line: `# HELP x Some \\ help\nmore`, kw: "HELP", name: "x", text: "Some \\ help\nmore"},
		{line: `# TYPE x COUNTER`, kw: "TYPE", name: "x", text: "counter"},
		{line: `# TYPE x gauge_histogram`, kw: "TYPE", name: "x", text: "gaugehistogram"},
		{line: `# just a comment`},
		{line: `# TYPE x fancy`, wantErr: `unknown metric type "fancy"`},
		{line: `# HELP x-y z`, wantErr: `invalid metric name in comment`},
		{line: `# HELP x bad \q`, wantErr: `invalid escape sequence '\q'`},
	} {
		kw, name, text, err := ParseComment(c.line)
		if (err == nil) != (c.wantErr == "") || (err != nil && err.Error() != c.wantErr) || kw != c.kw || name != c.name || text != c.text {
			t.Errorf("ParseComment(%q) = %q, %q, %q, %v; want %q, %q, %q, %q", c.line, kw, name, text, err, c.kw, c.name, c.text, c.wantErr)
		}
	}
}

// TestParseLineNumbers checks that Parse names the line it stops at.
func TestParseLineNumbers(t *testing.T) {
	_, err := Parse(strings.NewReader("# TYPE x gauge\nx 1\n\nx{a=\"1\"} one\n"))
	if err == nil || err.Error() != `line 4: expected float as value, got "one"` {
		t.Errorf("Parse = %v, want line 4's error", err)
	}
	_, err = Parse(strings.NewReader("x 1\n# TYPE x gauge\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "line 2: second TYPE line") {
		t.Errorf("Parse = %v, want line 2's error", err)
	}
}

// TestRegistryPage writes every kind of metric and reads the page back with expfmt, the
// reference parser, and with Parse.
func TestRegistryPage(t *testing.T) {
	var r Registry
	c := NewCounterVec("jobs_total", "Jobs \\ done,\nby \"result\".", "result", "queue")
	c.With("ok", `q"1\`).Add(3)
	c.With("failed", "q\n2").Inc()
	h := NewHistogramVec("wait_seconds", "Wait.", []float64{0.1, 1}, "queue")
	for _, v := range []float64{0.05, 0.5, 0.5, 7} {
		h.With("a").Observe(v)
	}
	r.Register(c, h, GaugeFunc("depth", "Depth.", func() float64 { return 4 }), CounterFunc("errors_total", "Errors.", func() float64 { return 2 }),
		GoCollector(), ProcessCollector())
	page := r.Page()
	tp := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := tp.TextToMetricFamilies(bytes.NewReader(page))
	if err != nil {
		t.Fatalf("expfmt cannot read the page: %v\n%s", err, page)
	}
	if got := fams["jobs_total"].Metric; len(got) != 2 || got[1].GetCounter().GetValue() != 3 || got[1].Label[1].GetValue() != `q"1\` || got[0].Label[1].GetValue() != "q\n2" {
		t.Errorf("jobs_total = %v", got)
	}
	if fams["jobs_total"].GetHelp() != "Jobs \\ done,\nby \"result\"." {
		t.Errorf("jobs_total help = %q", fams["jobs_total"].GetHelp())
	}
	hist := fams["wait_seconds"].Metric[0].GetHistogram()
	if hist.GetSampleCount() != 4 || hist.GetSampleSum() != 8.05 || len(hist.Bucket) != 3 || hist.Bucket[0].GetCumulativeCount() != 1 || hist.Bucket[1].GetCumulativeCount() != 3 {
		t.Errorf("wait_seconds = %v, want 4 observations in buckets 1, 3, 4", hist)
	}
	for _, name := range []string{"depth", "errors_total", "go_goroutines", "go_gc_duration_seconds", "go_memstats_alloc_bytes", "process_start_time_seconds", "process_cpu_seconds_total", "process_open_fds"} {
		if fams[name] == nil {
			t.Errorf("the page lacks %s", name)
		}
	}
	own, err := Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatalf("Parse cannot read the page: %v", err)
	}
	if len(own) != len(fams) {
		t.Errorf("Parse found %d families, expfmt %d", len(own), len(fams))
	}
}

// FuzzParseSample checks that any line parses without panicking and that promtext accepts what
// expfmt accepts, with the same value and labels.
func FuzzParseSample(f *testing.F) {
	for _, s := range []string{"up 1", `x{a="1",b="\"\\\n"} -Inf 17`, `{"a.b",c="d"} NaN`, `x{a=b} 1`, `x 1 2 3`, `x{} 0x1p3`, ` x { a = "1" , } 1`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		got, err := ParseSample(line, nil)
		trimmed := strings.TrimLeft(line, " \t")
		if strings.ContainsAny(line, "\n\r") || trimmed == "" || trimmed[0] == '#' {
			return
		}
		// expfmt lets quotes open and close inside a bare metric name (A"b"c is A); the text
		// format has no such names, and promtext refuses them.
		if name, _, _ := strings.Cut(strings.Fields(trimmed + " x")[0], "{"); trimmed[0] != '"' && strings.Contains(name, `"`) {
			return
		}
		tp := expfmt.NewTextParser(model.UTF8Validation)
		fams, refErr := tp.TextToMetricFamilies(strings.NewReader(line + "\n"))
		if refErr != nil {
			if err == nil {
				t.Fatalf("ParseSample(%q) = %+v, expfmt refuses it: %v", line, got, refErr)
			}
			return
		}
		if err != nil {
			t.Fatalf("ParseSample(%q) = %v; expfmt accepts it", line, err)
		}
		mf := fams[got.Name]
		if len(fams) != 1 || mf == nil || len(mf.Metric) != 1 {
			t.Fatalf("ParseSample(%q) = %+v; expfmt gives %v", line, got, fams)
		}
		m := mf.Metric[0]
		v := m.GetUntyped().GetValue()
		if len(m.Label) != len(got.Labels) || (v != got.Value && !(math.IsNaN(v) && math.IsNaN(got.Value))) || m.GetTimestampMs() != got.TimestampMs {
			t.Fatalf("ParseSample(%q) = %+v; expfmt gives %v", line, got, m)
		}
		for i, p := range m.Label {
			if p.GetName() != got.Labels[i].Name || p.GetValue() != got.Labels[i].Value {
				t.Fatalf("ParseSample(%q) label %d = %v; expfmt gives %v", line, i, got.Labels[i], p)
			}
		}
	})
}

// FuzzWriteRoundTrip checks that any help text and label value are written so that expfmt reads
// them back: escaped, and made valid UTF-8 (the format drops blanks a help text begins with).
func FuzzWriteRoundTrip(f *testing.F) {
	f.Add("help \\ with\nnew-line", `va"lue\`, 1.5)
	f.Add("", "\xff\xfe", math.Inf(-1))
	f.Fuzz(func(t *testing.T, help, value string, v float64) {
		var w Writer
		w.Family("m", "gauge", help)
		w.Sample("m", v, "l", value)
		tp := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := tp.TextToMetricFamilies(bytes.NewReader(w.Bytes()))
		if err != nil {
			t.Fatalf("expfmt cannot read %q: %v", w.Bytes(), err)
		}
		m := fams["m"].Metric[0]
		want := strings.ToValidUTF8(value, "\uFFFD")
		got := m.GetGauge().GetValue()
		if m.Label[0].GetValue() != want || fams["m"].GetHelp() != strings.TrimLeft(strings.ToValidUTF8(help, "\uFFFD"), " \t") || (got != v && !(math.IsNaN(v) && math.IsNaN(got))) {
			t.Fatalf("read back %v from %q; want label %q, value %v", fams["m"], w.Bytes(), want, v)
		}
	})
}
