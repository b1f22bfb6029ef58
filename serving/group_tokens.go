package serving

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/promql"
)

// TokenCounters are each serving engine's Prometheus counters of input and output tokens:
// vLLM's counters, and the _sum series of TGI's and Triton TensorRT-LLM backend's histograms of
// tokens per request. A histogram's _sum only grows (each request adds its tokens), so its
// increase over a period is the tokens of that period, as a counter's is. TGI's histograms carry
// no labels of their own (group by a scrape target's label, such as namespace); Triton's carry
// model, version and response_metric_type (docs/architecture.md "Token service model").
var TokenCounters = map[string][2]string{
	"vllm":   {"vllm:prompt_tokens_total", "vllm:generation_tokens_total"},
	"tgi":    {"tgi_request_input_length_sum", "tgi_request_generated_tokens_sum"},
	"triton": {"nv_llm_input_token_len_sum", "nv_llm_output_token_len_sum"},
}

// GroupTokens are where report kpi reads its token counts per group over a period: a
// Prometheus server, queried for the increase of Server's counters over the period by the
// group label, or for InputQuery and OutputQuery when given.
type GroupTokens struct {
	Prometheus              string
	Server                  string // vllm, tgi or triton
	InputQuery, OutputQuery string // instant vectors of token counts by the group label
}

// Tokens are a group's input and output tokens over the period.
type Tokens struct{ Input, Output float64 }

// Queries returns the two queries Read runs for a group label and a period.
func (g GroupTokens) Queries(by string, from, to time.Time) (string, string, error) {
	if g.InputQuery != "" || g.OutputQuery != "" {
		if g.InputQuery == "" || g.OutputQuery == "" {
			return "", "", gpucost.Errorf(gpucost.EInvalid, "--input-tokens-query and --output-tokens-query go together")
		}
		return g.InputQuery, g.OutputQuery, nil
	}
	c, ok := TokenCounters[strings.ToLower(g.Server)]
	if !ok {
		return "", "", gpucost.Errorf(gpucost.EInvalid, "--tokens-server %q: use %s, or give --input-tokens-query and --output-tokens-query", g.Server, strings.Join(tokenServers(), ", "))
	}
	window := fmt.Sprintf("%ds", int64(math.Round(to.Sub(from).Seconds())))
	q := func(counter string) string { return fmt.Sprintf("sum by (%s) (increase(%s[%s]))", by, counter, window) }
	return q(c[0]), q(c[1]), nil
}

// Read returns the tokens per value of by over [from, to), read at to, and where they came
// from; nil without a server.
func (g GroupTokens) Read(ctx context.Context, by string, from, to time.Time) (map[string]Tokens, string, error) {
	if g.Prometheus == "" {
		if g.InputQuery != "" || g.OutputQuery != "" {
			return nil, "", gpucost.Errorf(gpucost.EInvalid, "--input-tokens-query and --output-tokens-query need --tokens-prometheus")
		}
		return nil, "", nil
	}
	in, out, err := g.Queries(by, from, to)
	if err != nil {
		return nil, "", err
	}
	c := &promql.Collector{URL: g.Prometheus}
	m := map[string]Tokens{}
	for k, q := range []string{in, out} {
		vs, err := c.Vector(ctx, q, to)
		if err != nil {
			return nil, "", fmt.Errorf("read token counts: %w", err)
		}
		for _, v := range vs {
			t := m[v.Labels[by]]
			if k == 0 {
				t.Input += v.Value
			} else {
				t.Output += v.Value
			}
			m[v.Labels[by]] = t
		}
	}
	return m, fmt.Sprintf("%s (%s; %s)", g.Prometheus, in, out), nil
}

// tokenServers lists TokenCounters' engines in order.
func tokenServers() []string {
	names := make([]string, 0, len(TokenCounters))
	for n := range TokenCounters {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
