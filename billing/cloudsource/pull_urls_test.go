package cloudsource

import (
	"context"
	"strings"
	"testing"
)

// TestPullURLsRefusals: sources that cannot be opened are each tried, the first one's error is
// returned, and no report is handed on.
func TestPullURLsRefusals(t *testing.T) {
	env := map[string]string{"GS_ACCESS_KEY_ID": "only-the-id"}
	calls := 0
	p := &Puller{}
	all, err := p.PullURLs(context.Background(), []string{"ftp://nowhere/x", "gs://bucket/prefix"}, func(k string) string { return env[k] },
		func(Report) error { calls++; return nil })
	if len(all) != 0 || calls != 0 || err == nil || !strings.Contains(err.Error(), `bill source "ftp://nowhere/x"`) {
		t.Errorf("PullURLs(two sources refused) = %d results, %d reports, %v; want none and the first source's error", len(all), calls, err)
	}
}
