package present

import (
	"testing"

	"github.com/gpucost/gpucost/serving"
)

// TestKPIUnmatchedTokens names the groups whose tokens hold no GPU cost in the table, and their
// tokens summed; nothing when every group with tokens has a row.
func TestKPIUnmatchedTokens(t *testing.T) {
	table := Table{Rows: [][]string{{"serving"}, {"research"}}}
	counts := map[string][2]float64{"serving": {10, 1}, "": {300, 30}, "batch": {200, 20}, "empty": {0, 0}}
	got := KPIUnmatchedTokens(table, counts, "namespace")
	want := `Left out: 500 input and 50 output tokens of "batch", no namespace label, which hold no GPU cost in this report; label the serving engines' series with namespace (a scrape relabel) or give --input-tokens-query and --output-tokens-query.`
	if got != want {
		t.Errorf("KPIUnmatchedTokens = %q, want %q", got, want)
	}
	if got := KPIUnmatchedTokens(table, map[string][2]float64{"serving": {10, 1}}, "namespace"); got != "" {
		t.Errorf("KPIUnmatchedTokens(all matched) = %q, want none", got)
	}
}

// TestKPITokensFrom keeps each group's input and output tokens, and is nil without counts.
func TestKPITokensFrom(t *testing.T) {
	k := KPITokensFrom("vllm", 20, map[string]serving.Tokens{"serving": {Input: 900, Output: 100}})
	if k == nil || k.Source != "vllm" || k.OutputWeight != 20 || k.Counts["serving"] != [2]float64{900, 100} || len(k.Counts) != 1 {
		t.Errorf("KPITokensFrom = %+v; want vllm's 900 and 100 tokens of serving at weight 20", k)
	}
	if k := KPITokensFrom("vllm", 1, nil); k != nil {
		t.Errorf("KPITokensFrom(no counts) = %+v, want nil", k)
	}
}
