package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// startExamplePrometheus starts Prometheus on loopback with the demo's serving namespace's vLLM
// counters (requests, prompt and generation tokens) over the last six hours and the next one
// (a few TSDB blocks: a month of them takes promtool and Prometheus half a minute),
// and returns its URL, which the examples' http://prometheus:9090 stands for; "" and why where
// Prometheus is not installed (failed under CI=true).
func startExamplePrometheus(t *testing.T) (url, missing string) {
	t.Helper()
	for _, bin := range []string{"prometheus", "promtool"} {
		if _, err := exec.LookPath(bin); err != nil {
			msg := bin + " is not installed; to run these examples: apt-get install -y prometheus"
			if os.Getenv("CI") == "true" {
				t.Fatal(msg)
			}
			return "", msg
		}
	}
	ns := `namespace="serving",job="vllm",instance="vllm-0:8000"`
	series := []tokenSeries{
		{"vllm:request_success", ns, 5e7, true},
		{"vllm:prompt_tokens", ns, 4e9, true},
		{"vllm:generation_tokens", ns, 2e8, true},
	}
	now := time.Now().Truncate(time.Minute)
	return startBackfilledPrometheus(t, series, now.Add(-6*time.Hour), now.Add(time.Hour), 5*time.Minute), ""
}

// isPrometheusExample reports whether line's command reads the Prometheus the examples name.
func isPrometheusExample(line string) bool {
	return strings.Contains(exampleCommand(line), "{prometheus}")
}

// exampleWords splits a command line into words as a shell does for the examples: single and
// double quotes keep spaces and are dropped.
func exampleWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	var quote rune
	in := false
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '\'' || r == '"'):
			quote, in = r, true
		case quote == 0 && r == ' ':
			if in {
				words = append(words, w.String())
			}
			w.Reset()
			in = false
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		t.Fatalf("example %q: unbalanced quote", line)
	}
	if in {
		words = append(words, w.String())
	}
	return words
}
