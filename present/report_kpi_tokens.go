package present

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpucost/gpucost/serving"
)

// KPITokensFrom is the token counts by group that report kpi read from source, with the input
// tokens one output token is worth (weight), for KPIs; nil without counts.
func KPITokensFrom(source string, weight float64, counts map[string]serving.Tokens) *KPITokenSource {
	if counts == nil {
		return nil
	}
	k := &KPITokenSource{Source: source, OutputWeight: weight, Counts: map[string][2]float64{}}
	for g, t := range counts {
		k.Counts[g] = [2]float64{t.Input, t.Output}
	}
	return k
}

// KPIUnmatchedTokens says which token counts (input, output by group) found no group with GPU
// cost in the KPI table t, such as counters without the by label (TGI's carry no labels of
// their own); "" when all matched.
func KPIUnmatchedTokens(t Table, counts map[string][2]float64, by string) string {
	groups := map[string]bool{}
	for _, r := range t.Rows {
		groups[r[0]] = true
	}
	var left []string
	var in, out float64
	for g, c := range counts {
		if !groups[g] && c[0]+c[1] > 0 {
			name := fmt.Sprintf("%q", g)
			if g == "" {
				name = "no " + by + " label"
			}
			left = append(left, name)
			in, out = in+c[0], out+c[1]
		}
	}
	if len(left) == 0 {
		return ""
	}
	sort.Strings(left)
	return fmt.Sprintf("Left out: %.0f input and %.0f output tokens of %s, which hold no GPU cost in this report; label the serving engines' series with %s (a scrape relabel) or give --input-tokens-query and --output-tokens-query.",
		in, out, strings.Join(left, ", "), by)
}
