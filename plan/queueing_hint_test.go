package plan

import (
	"strings"
	"testing"
	"time"
)

// TestReplicasForHint: an SLO the service time alone misses suggests --service-cv 0 only where
// the spread was assumed exponential, never where it was measured (token counts, a profile).
func TestReplicasForHint(t *testing.T) {
	for _, tc := range []struct {
		sp   Spread
		hint bool
	}{
		{Spread{}, true},
		{Exponential, true},
		{Spread{CV: 1.52, Source: "token counts of 8819 requests"}, false},
		{Spread{CV: 0.5, Source: "--service-cv"}, false},
	} {
		_, err := ReplicasFor(10, time.Second, tc.sp, 0.99, 2*time.Second)
		if err == nil || strings.Contains(err.Error(), "--service-cv 0") != tc.hint {
			t.Errorf("ReplicasFor(10/s, 1s, %v, p99, 2s) = %v; want the --service-cv 0 hint %v", tc.sp, err, tc.hint)
		}
	}
}
