package enforce

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
)

func testBudgets(t testing.TB) []budget.Budget {
	data, err := os.ReadFile("testdata/budgets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bs, err := budget.Load("budgets.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	return bs
}

func testPolicies(t testing.TB) []Policy {
	data, err := os.ReadFile("testdata/policies.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := Load("policies.yaml", data, testBudgets(t))
	if err != nil {
		t.Fatalf("Load(policies.yaml) = %v", err)
	}
	return ps
}

func TestLoadFile(t *testing.T) {
	ps := testPolicies(t)
	if len(ps) != 3 {
		t.Fatalf("Load(policies.yaml) gave %d policies, want 3", len(ps))
	}
	r := ps[0]
	if r.Name != "research-over-budget" || r.Budget != "research-gpus" || r.Over != 100 || r.Forecast || r.DryRun || !r.HasScope ||
		r.Scope.Tags["team"] != "research" || r.Unless["approved"] != "true" || r.Line != 3 || r.File != "policies.yaml" ||
		!reflect.DeepEqual(r.Actions, []string{"notify", "tag", "stop", "scale-to-zero"}) || !reflect.DeepEqual(r.Notify, []string{"ops-slack"}) {
		t.Errorf("research-over-budget = %+v", r)
	}
	if r.Trigger() != "research-gpus actual ≥ 100%" {
		t.Errorf("Trigger() = %q", r.Trigger())
	}
	s := ps[1]
	if s.Over != 120 || !s.Forecast || !s.DryRun || s.HasScope || s.tagsToSet()["gpucost-over-forecast"] != "true" || s.Trigger() != "prod-serving forecast ≥ 120%" {
		t.Errorf("serving-forecast = %+v", s)
	}
	c := ps[2]
	if !c.IsSpotCap() || c.MaxSpot != 2 || c.DryRun || c.Scope.Provider != "aws" || c.Trigger() != "spot instances > 2" {
		t.Errorf("spot-cap = %+v", c)
	}
	if got := c.tagsToSet(); !reflect.DeepEqual(got, map[string]string{DefaultTagKey: "spot-cap"}) {
		t.Errorf("spot-cap tagsToSet() = %v", got)
	}
}

func TestLoadErrors(t *testing.T) {
	const head = "policies:\n  - name: p\n"
	for _, tc := range []struct{ name, yaml, want string }{
		{"empty", "", "p.yaml: no policies"},
		{"empty list", "policies: []\n", "p.yaml line 1: policies: empty"},
		{"unknown field", head + "    budget: research-gpus\n    ovr: 100%\n", `p.yaml line 4: unknown field "ovr"; known fields here: name, budget, over`},
		{"unknown scope field", head + "    max_spot_instances: 3\n    actions: [stop]\n    scope: {teem: x}\n", `line 5: unknown field "teem"; known fields here: tags, namespace`},
		{"missing name", "policies:\n  - budget: research-gpus\n", `p.yaml line 2: policies[0].name: missing`},
		{"bad name", "policies:\n  - name: 'a b'\n", `policies[0].name: "a b": use up to 100 letters`},
		{"no trigger", head + "    actions: [stop]\n", `p.yaml line 2: policies[0]: no trigger: give budget: NAME with over: 100%`},
		{"both triggers", head + "    budget: research-gpus\n    over: 100%\n    max_spot_instances: 3\n    actions: [stop]\n", `line 5: policies[0].max_spot_instances: give either budget`},
		{"unknown budget", head + "    budget: reserch\n    over: 100%\n    actions: [stop]\n", `p.yaml line 3: policies[0].budget: "reserch" is not a budget in the budgets file; it has research-gpus, all-aws, prod-serving`},
		{"missing over", head + "    budget: research-gpus\n    actions: [stop]\n", `policies[0].over: missing`},
		{"bad over", head + "    budget: research-gpus\n    over: lots\n    actions: [stop]\n", `p.yaml line 4: over: "lots" is not a percentage`},
		{"over out of range", head + "    budget: research-gpus\n    over: 0%\n    actions: [stop]\n", `p.yaml line 4: policies[0].over: 0% is out of range`},
		{"negative cap", head + "    max_spot_instances: -1\n    actions: [stop]\n", `policies[0].max_spot_instances: -1: give 0 or more`},
		{"cap with over", head + "    max_spot_instances: 1\n    over: 50%\n    actions: [stop]\n", `policies[0].over: over and forecast go with budget`},
		{"no actions", head + "    max_spot_instances: 1\n", `p.yaml line 2: policies[0].actions: missing; list what the policy does: notify, tag, stop, scale-to-zero`},
		{"bad action", head + "    max_spot_instances: 1\n    actions: [stop, terminate]\n", `p.yaml line 4: policies[0].actions: actions[1] "terminate" is not an action`},
		{"twice", head + "    max_spot_instances: 1\n    actions: [stop, stop]\n", `"stop" is listed twice`},
		{"notify without targets", head + "    max_spot_instances: 1\n    actions: [notify]\n", `policies[0].notify: missing: the notify action needs the targets`},
		{"targets without notify", head + "    max_spot_instances: 1\n    actions: [stop]\n    notify: [x]\n", `p.yaml line 5: policies[0].notify: targets are given but actions lacks notify`},
		{"tags without tag", head + "    max_spot_instances: 1\n    actions: [stop]\n    tags: {a: b}\n", `policies[0].tags: tags are given but actions lacks tag`},
		{"aws tag", head + "    max_spot_instances: 1\n    actions: [tag]\n    tags: {'aws:x': b}\n", `"aws:x": a tag key must be`},
		{"spot cap scale", head + "    max_spot_instances: 1\n    actions: [scale-to-zero]\n", `a spot cap acts on instances: use stop`},
		{"duplicate", head + "    max_spot_instances: 1\n    actions: [stop]\n  - name: p\n    max_spot_instances: 2\n    actions: [stop]\n", `p.yaml line 5: policies[1].name: "p" is also the name of the policy on line 2`},
		{"bad yaml", "policies:\n  - name: [\n", "p.yaml line 2: did not find expected node content; check the indentation"},
		{"wrong type", head + "    max_spot_instances: many\n    actions: [stop]\n", `p.yaml line 3: cannot unmarshal str ` + "`many`" + ` into int`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load("p.yaml", []byte(tc.yaml), testBudgets(t))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load(%q) = %v, want an error containing %q", tc.yaml, err, tc.want)
			}
			if gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Errorf("Load(%q) code = %s, want invalid", tc.yaml, gpucost.ErrorCode(err))
			}
		})
	}
}

func TestLoadWithoutBudgets(t *testing.T) {
	_, err := Load("p.yaml", []byte("policies:\n  - name: p\n    budget: x\n    over: 100%\n    actions: [stop]\n"), nil)
	if err == nil || !strings.Contains(err.Error(), "no budgets were given; pass the budgets file (--budgets)") {
		t.Fatalf("Load without budgets = %v", err)
	}
}

func FuzzLoad(f *testing.F) {
	data, err := os.ReadFile("testdata/policies.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("policies:\n  - name: cap\n    max_spot_instances: 40\n    actions: [stop]\n"))
	f.Add([]byte("policies:\n  - name: p\n    budget: all-aws\n    over: '80 %'\n    forecast: true\n    actions: [tag, notify]\n    notify: [a]\n"))
	budgets := testBudgets(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, err := Load("f.yaml", data, budgets)
		if err != nil {
			if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.HasPrefix(err.Error(), "f.yaml") {
				t.Fatalf("Load error %q: want an EInvalid error naming the file", err)
			}
			return
		}
		for _, p := range ps {
			if p.Name == "" || len(p.Actions) == 0 || p.IsSpotCap() == (p.Budget != "") || (!p.IsSpotCap() && p.Over <= 0) {
				t.Fatalf("Load accepted an incomplete policy %+v", p)
			}
		}
	})
}
