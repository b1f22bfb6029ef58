package analyze

import (
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

func TestParseGroupBy(t *testing.T) {
	tests := []struct {
		name, in string
		want     GroupBy
		wantErr  bool
	}{
		{"gpu", "gpu", GroupBy{Kind: ByGPU}, false},
		{"host upper case", "HOST", GroupBy{Kind: ByHost}, false},
		{"model with spaces", " model ", GroupBy{Kind: ByModel}, false},
		{"namespace is a label", "namespace", GroupBy{Kind: ByLabel, Label: "namespace"}, false},
		{"pod is a label", "pod", GroupBy{Kind: ByLabel, Label: "pod"}, false},
		{"label", "label:team", GroupBy{Kind: ByLabel, Label: "team"}, false},
		{"label key lower-cased", "label:Team", GroupBy{Kind: ByLabel, Label: "team"}, false},
		{"label with dots", "label:app.kubernetes.io/name", GroupBy{Kind: ByLabel, Label: "app.kubernetes.io/name"}, false},
		{"empty", "", GroupBy{}, true},
		{"unknown", "rack", GroupBy{}, true},
		{"label without key", "label:", GroupBy{}, true},
		{"label key with space", "label:a b", GroupBy{}, true},
		{"label key with equals", "label:a=b", GroupBy{}, true},
		{"label key with comma", "label:a,b", GroupBy{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseGroupBy(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ParseGroupBy(%q) = %+v, want an error", tt.in, got)
				}
				if code := gpucost.ErrorCode(err); code != gpucost.EInvalid {
					t.Errorf("ParseGroupBy(%q) error code = %q, want %q", tt.in, code, gpucost.EInvalid)
				}
				if !strings.Contains(err.Error(), groupByForms) {
					t.Errorf("ParseGroupBy(%q) error %q does not list the valid forms", tt.in, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseGroupBy(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
			if back, err := ParseGroupBy(got.String()); err != nil || back != got {
				t.Errorf("ParseGroupBy(%q.String() = %q) = %+v, %v; want %+v", tt.in, got.String(), back, err, got)
			}
		})
	}
}

func TestGroupByKey(t *testing.T) {
	normalize := func(m string) string { return strings.TrimPrefix(m, "NVIDIA ") + "!" }
	labelled := series("GPU-1", "node-a", "NVIDIA A100-SXM4-80GB", gpucost.Labels{"namespace": "ml", "team": "search"})
	bare := series("GPU-2", "", "", nil)
	empty := series("GPU-3", "node-b", "T4", gpucost.Labels{"team": ""})
	tests := []struct {
		name      string
		by        GroupBy
		s         *gpucost.Series
		normalize func(string) string
		want      string
	}{
		{"gpu", GroupBy{Kind: ByGPU}, labelled, nil, "GPU-1"},
		{"zero value is gpu", GroupBy{}, labelled, nil, "GPU-1"},
		{"host", GroupBy{Kind: ByHost}, labelled, nil, "node-a"},
		{"missing host", GroupBy{Kind: ByHost}, bare, nil, NoneGroup},
		{"model normalised", GroupBy{Kind: ByModel}, labelled, normalize, "A100-SXM4-80GB!"},
		{"model kept without normalize", GroupBy{Kind: ByModel}, labelled, nil, "NVIDIA A100-SXM4-80GB"},
		{"missing model not normalised", GroupBy{Kind: ByModel}, bare, normalize, NoneGroup},
		{"label", GroupBy{Kind: ByLabel, Label: "team"}, labelled, nil, "search"},
		{"missing label", GroupBy{Kind: ByLabel, Label: "team"}, bare, nil, NoneGroup},
		{"empty label value", GroupBy{Kind: ByLabel, Label: "team"}, empty, nil, NoneGroup},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.by.Key(tt.s, tt.normalize); got != tt.want {
				t.Errorf("%v.Key(%s) = %q, want %q", tt.by, tt.s.Key(), got, tt.want)
			}
		})
	}
}

// FuzzParseGroupBy checks that ParseGroupBy never panics and that what it accepts prints back to
// an equal value.
func FuzzParseGroupBy(f *testing.F) {
	for _, s := range []string{"gpu", "host", "model", "namespace", "pod", "label:team", "label:", "LABEL:X", "gpu ", "label:a=b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ParseGroupBy(s)
		if err != nil {
			if gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Fatalf("ParseGroupBy(%q) error code = %q, want %q", s, gpucost.ErrorCode(err), gpucost.EInvalid)
			}
			return
		}
		if back, err := ParseGroupBy(g.String()); err != nil || back != g {
			t.Fatalf("ParseGroupBy(%q) = %+v but ParseGroupBy(%q) = %+v, %v", s, g, g.String(), back, err)
		}
	})
}
