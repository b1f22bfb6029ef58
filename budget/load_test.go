package budget

import (
	"os"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

func TestLoadFile(t *testing.T) {
	data, err := os.ReadFile("testdata/budgets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bs, err := Load("budgets.yaml", data)
	if err != nil {
		t.Fatalf("Load(budgets.yaml) = %v", err)
	}
	if len(bs) != 3 {
		t.Fatalf("Load(budgets.yaml) gave %d budgets, want 3", len(bs))
	}
	r := bs[0]
	if r.Name != "research-gpus" || r.Period != Monthly || r.Amount != gpucost.USD(20_000_000_000_000) || !r.Scope.GPUOnly || r.Scope.Team != "research" || r.Line != 3 || r.Cost != Effective {
		t.Errorf("research-gpus = %+v", r)
	}
	want := []string{"actual 50%:finops-slack", "actual 80%:research-leads,finops-slack", "actual 100%:research-leads,cto-email", "forecast 100%:research-leads"}
	for i, th := range r.Thresholds {
		if got := th.String() + ":" + strings.Join(th.Notify, ","); got != want[i] {
			t.Errorf("research-gpus threshold %d = %s, want %s", i, got, want[i])
		}
	}
	a := bs[1]
	if a.Period != Quarterly || a.Amount.Decimal() != "1500000.5" || len(a.Thresholds) != 4 || a.Thresholds[3].Kind != KindForecast || a.Thresholds[0].Notify[0] != "finops-webhook" {
		t.Errorf("all-aws = %+v", a)
	}
	if bs[2].Cost != Billed || bs[2].Scope.Tags["env"] != "prod" || bs[2].Thresholds[0].Notify != nil {
		t.Errorf("prod-serving = %+v", bs[2])
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"unknown field", "budgets:\n  - name: a\n    perod: monthly\n", `b.yaml line 3: unknown field "perod"; known fields here: name, scope, period`},
		{"unknown scope field", "budgets:\n  - name: a\n    period: monthly\n    amount: 1\n    scope: {teem: x}\n", `line 5: unknown field "teem"; known fields here: tags, namespace, team`},
		{"bad period", "budgets:\n  - name: a\n    period: weekly\n    amount: 1\n", `b.yaml line 3: budgets[0].period: "weekly" is not allowed; use one of monthly, quarterly`},
		{"missing period", "budgets:\n  - name: a\n    amount: 1\n", `b.yaml line 2: budgets[0].period: missing; it is required`},
		{"missing name", "budgets:\n  - period: monthly\n    amount: 1\n", `b.yaml line 2: budgets[0].name: missing`},
		{"bad amount", "budgets:\n  - name: a\n    period: monthly\n    amount: ten\n", `b.yaml line 4: budgets[0].amount: "ten" is not a positive amount`},
		{"negative amount", "budgets:\n  - name: a\n    period: monthly\n    amount: -5\n", `line 4: budgets[0].amount: "-5" is not a positive amount`},
		{"missing amount", "budgets:\n  - name: a\n    period: monthly\n", `b.yaml line 2: budgets[0].amount: missing`},
		{"bad currency", "budgets:\n  - name: a\n    period: monthly\n    amount: 1\n    currency: dollars\n", `line 5: budgets[0].currency: "dollars": use an ISO 4217 code`},
		{"bad percent", "budgets:\n  - name: a\n    period: monthly\n    amount: 1\n    thresholds:\n      - actual: -3\n", `line 6: budgets[0].thresholds[0].actual: -3% is out of range: use a value above 0%`},
		{"both kinds", "budgets:\n  - name: a\n    period: monthly\n    amount: 1\n    thresholds:\n      - {actual: 3, forecast: 4}\n", `budgets[0].thresholds[0]: give exactly one of actual`},
		{"duplicate threshold", "budgets:\n  - name: a\n    period: monthly\n    amount: 1\n    thresholds: [{actual: 3}, {actual: 3}]\n", `actual 3% is given twice`},
		{"duplicate name", "budgets:\n  - {name: a, period: monthly, amount: 1}\n  - {name: a, period: monthly, amount: 2}\n", `b.yaml line 3: budgets[1].name: "a" is also the name of the budget on line 2`},
		{"bad name", "budgets:\n  - {name: 'a:b', period: monthly, amount: 1}\n", `budgets[0].name: "a:b": use letters`},
		{"empty list", "budgets: []\n", `b.yaml line 1: budgets: empty; list at least one budget`},
		{"empty file", "", `b.yaml: no budgets`},
		{"not yaml", "budgets: [\n", `b.yaml line 1: did not find expected node content`},
		{"wrong type", "budgets:\n  - name: a\n    period: monthly\n    amount: 1\n    gpu_only: 3\n", `unknown field "gpu_only"`},
		{"wrong scalar", "budgets:\n  - {name: a, period: monthly, amount: 1, scope: {gpu_only: maybe}}\n", `b.yaml line 2: cannot unmarshal str`},
		{"empty notify", "budgets:\n  - {name: a, period: monthly, amount: 1, notify: ['']}\n", `budgets[0].notify[0]: missing`},
		{"empty tag key", "budgets:\n  - {name: a, period: monthly, amount: 1, scope: {tags: {'': x}}}\n", `budgets[0].scope: tags: a tag key is empty`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load("b.yaml", []byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load(%q) = %v, want an error containing %q", tc.yaml, err, tc.want)
			}
			if gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Errorf("Load(%q) error code %q, want %q", tc.yaml, gpucost.ErrorCode(err), gpucost.EInvalid)
			}
		})
	}
}

func FuzzLoad(f *testing.F) {
	for _, name := range []string{"testdata/budgets.yaml", "testdata/job.yaml", "testdata/endpoint.yaml"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("budgets:\n  - {name: a, period: monthly, amount: 1e3, thresholds: [{forecast: 90}]}\n"))
	f.Add([]byte("budgets: [{name: x, amount: '0.000000001', period: quarterly, scope: {tags: {a: b}}}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		bs, err := Load("fuzz.yaml", data)
		if err != nil {
			if gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Fatalf("Load error %v has code %q, want invalid", err, gpucost.ErrorCode(err))
			}
			if !strings.Contains(err.Error(), "fuzz.yaml") {
				t.Fatalf("Load error %q does not name the file", err)
			}
			return
		}
		for _, b := range bs {
			if b.Name == "" || b.Amount.Nanos <= 0 || (b.Period != Monthly && b.Period != Quarterly) || len(b.Thresholds) == 0 {
				t.Fatalf("Load accepted an invalid budget %+v", b)
			}
		}
		if _, err := LoadJob("fuzz.yaml", data); err != nil && gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Fatalf("LoadJob error %v has code %q, want invalid", err, gpucost.ErrorCode(err))
		}
	})
}
