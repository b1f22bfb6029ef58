package main

import (
	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/present"
	"github.com/gpucost/gpucost/serving"
	"github.com/spf13/cobra"
)

// reportKPIHelp is report kpi's --help.
var reportKPIHelp = `kpi reports GPU unit economics per group over a period: each group's GPU cost (the
GPU-hours it held, idle included, each at its price: the bill's effective cost where a bill line
covers it, the catalog's on-demand price elsewhere), its idle cost and idle % (idle cost ÷ GPU
cost), GPU-hours and $/GPU-h, used GPU-hours (held × utilisation) and $/used GPU-h (GPU cost ÷
used GPU-hours), its jobs (job labels in telemetry: Kubernetes jobs, Slurm jobs) and the cost per
job, and, where request counts are given, the cost per 1,000 inference requests.

Request counts come from a CSV (--requests: a column named like --by, a requests column and an
optional date column, YYYY-MM-DD, to keep the period's rows) or from Prometheus
(--requests-prometheus URL --requests-query QUERY: an instant vector by the --by label,
evaluated at the end of the period).

Token counts come from Prometheus (--tokens-prometheus URL): the increase over the period, by the
--by label, of vLLM's vllm:prompt_tokens_total and vllm:generation_tokens_total, TGI's
tgi_request_input_length_sum and tgi_request_generated_tokens_sum, or Triton's TensorRT-LLM
backend nv_llm_input_token_len_sum and nv_llm_output_token_len_sum (--tokens-server), or your
own queries. The table then adds $/1M input, output and all tokens. TGI's and Triton's are
histograms of tokens per request, whose _sum counts all tokens; TGI's carry no labels of their
own, so the --by label must come from the scrape (such as namespace from Kubernetes service
discovery). Tokens of no group in the report are counted in a note, not dropped silently.`

func newReportKPICmd(e *env) *cobra.Command {
	var (
		f        costFlags
		by       string
		reqFile  string
		reqProm  string
		reqQuery string
		tok      serving.GroupTokens
		weight   float64
	)
	cmd := &cobra.Command{
		Use:   "kpi",
		Short: "Unit economics: cost per used GPU-hour, idle %, cost per job, cost per 1,000 requests",
		Long:  reportKPIHelp,
		Example: `  gpucost report kpi --by team --since 30d
  gpucost report kpi --by namespace --requests requests.csv
  gpucost report kpi --by namespace --requests-prometheus http://prometheus:9090 \
      --requests-query 'sum by (namespace) (increase(vllm:request_success_total[30d]))'
  gpucost report kpi --by namespace --tokens-prometheus http://prometheus:9090 --output-token-weight 20`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := parseBy(by)
			if err != nil {
				return err
			}
			if err := floatAbove("output-token-weight", weight, 0); err != nil {
				return err
			}
			if (reqProm == "") != (reqQuery == "") {
				return gpucost.Errorf(gpucost.EInvalid, "--requests-prometheus and --requests-query go together")
			}
			ctx := cmd.Context()
			s, err := f.snapshot(ctx, e)
			if err != nil {
				return err
			}
			requests, source, err := serving.GroupRequests{File: reqFile, Prometheus: reqProm, Query: reqQuery}.Read(ctx, by, s.Period.Start, s.Period.End)
			if err != nil {
				return err
			}
			counts, tsource, err := tok.Read(ctx, by, s.Period.Start, s.Period.End)
			if err != nil {
				return err
			}
			if counts != nil && !(weight > 0) {
				return gpucost.Errorf(gpucost.EInvalid, "--output-token-weight %v: give the input tokens one output token's GPU time is worth, such as 1 or 20", weight)
			}
			tokens := present.KPITokensFrom(tsource, weight, counts)
			t := present.KPIs(d, s, requests, source, tokens)
			if tokens != nil {
				if note := present.KPIUnmatchedTokens(t, tokens.Counts, by); note != "" {
					t.Notes = append(t.Notes, note)
				}
			}
			return e.print(t)
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&by, "by", "team", "group by team, project, namespace, job, gpu-model, … as report cost does")
	cmd.Flags().StringVar(&reqFile, "requests", "", "CSV of request counts per group")
	cmd.Flags().StringVar(&reqProm, "requests-prometheus", "", "Prometheus server to read request counts from")
	cmd.Flags().StringVar(&reqQuery, "requests-query", "", "PromQL instant vector of request counts by the --by label")
	cmd.Flags().StringVar(&tok.Prometheus, "tokens-prometheus", "", "Prometheus server to read token counters from, for $/1M tokens")
	cmd.Flags().StringVar(&tok.Server, "tokens-server", "vllm", "whose token counters: vllm (vllm:prompt_tokens_total, vllm:generation_tokens_total), tgi or triton (TensorRT-LLM backend)")
	cmd.Flags().StringVar(&tok.InputQuery, "input-tokens-query", "", "PromQL instant vector of input tokens over the period by the --by label, instead of --tokens-server's")
	cmd.Flags().StringVar(&tok.OutputQuery, "output-tokens-query", "", "PromQL instant vector of output tokens over the period by the --by label")
	cmd.Flags().Float64Var(&weight, "output-token-weight", 1, "the input tokens one output token's GPU time is worth, to split $/1M tokens between input and output (decode is slower per token than prefill)")
	return cmd
}
