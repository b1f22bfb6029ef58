package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPlanTokensWithoutModel: a request log that counts tokens is priced per million tokens in
// all by plan capacity and plan autoscale even without --service-model tokens — two minutes of
// one request a second, 1,000 input and 10 output tokens each, on one $1.01 replica: $1.01 an
// hour over 3,636,000 tokens, $0.28 a million.
func TestPlanTokensWithoutModel(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("TIMESTAMP,ContextTokens,GeneratedTokens\n")
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	for i := range 120 {
		fmt.Fprintf(&b, "%s,1000,10\n", t0.Add(time.Duration(i)*time.Second).Format("2006-01-02 15:04:05.0000000"))
	}
	log := filepath.Join(dir, "log.csv")
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "per 1M tokens: $0.28 in all (1000 input and 10 output tokens a request in the trace"
	code, out, errOut := runCLI(t, dir, "plan", "capacity", "--trace", log, "--service-time", "100ms", "--service-cv", "0", "--slo", "p99=1s", "--price", "1.01")
	if code != exitOK || !strings.Contains(out, "1 replicas") && !strings.Contains(out, "1 replica ") || !strings.Contains(out, "At this rate "+want) {
		t.Errorf("plan capacity on a token-counting log: exit %d; want one replica and %q\n%s%s", code, want, out, errOut)
	}
	code, out, errOut = runCLI(t, dir, "plan", "autoscale", "--trace", log, "--service-time", "100ms", "--service-cv", "0", "--slo", "p99=1s", "--price", "1.01", "--policy", "static")
	if code != exitOK || !strings.Contains(out, "static "+want) {
		t.Errorf("plan autoscale on a token-counting log: exit %d; want %q\n%s%s", code, want, out, errOut)
	}
}
