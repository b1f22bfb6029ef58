package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/query"
)

// fakeDetector is a fakeApplier that finds one change on the bill, research's move to a
// smaller instance type, and keeps the period it was asked for.
type fakeDetector struct {
	fakeApplier
	asked Query
}

func (f *fakeDetector) DetectedChanges(_ context.Context, q Query) ([]query.DetectedStep, error) {
	f.asked = q
	return []query.DetectedStep{{DetectedChange: fleet.DetectedChange{Namespace: "research", Provider: "aws", Kind: fleet.ChangeInstanceType,
		From: "p3.8xlarge", To: "p3.2xlarge", At: time.Date(2026, 11, 15, 0, 0, 0, 0, time.UTC), How: "detected: instance type changed p3.8xlarge→p3.2xlarge"},
		Step: "research-p3.8xlarge/right-sizing/p3.2xlarge"}}, nil
}

func (f *fakeDetector) RecordDetected(context.Context, string, time.Time, string, string, string) (gpucost.AppliedStep, error) {
	return gpucost.AppliedStep{}, gpucost.Errorf(gpucost.EInternal, "GET recorded a step")
}

// GET /api/v1/recommendations/detected is for viewers and admins, reads the period's since,
// and says what to do where the server detects nothing.
func TestGetDetected(t *testing.T) {
	f := newFixture(t)
	det := &fakeDetector{}
	f.srv.Applied = det
	const path = "/api/v1/recommendations/detected?since=14d"
	for _, c := range []struct {
		name, path, secret string
		want               int
	}{
		{"no token", path, "", http.StatusUnauthorized},
		{"ingest", path, f.secrets[gpucost.RoleIngest], http.StatusForbidden},
		{"bad since", "/api/v1/recommendations/detected?since=lately", f.secrets[gpucost.RoleViewer], http.StatusBadRequest},
		{"unknown parameter", "/api/v1/recommendations/detected?record=true", f.secrets[gpucost.RoleViewer], http.StatusBadRequest},
		{"admin", path, f.secrets[gpucost.RoleAdmin], http.StatusOK},
		{"viewer", path, f.secrets[gpucost.RoleViewer], http.StatusOK},
	} {
		if status, out := f.do(t, "GET", c.path, c.secret, nil); status != c.want {
			t.Errorf("%s: GET %s = %d %s, want %d", c.name, c.path, status, out, c.want)
		}
	}
	status, out := f.do(t, "GET", path, f.secrets[gpucost.RoleViewer], nil)
	var got DetectedResponse
	if err := json.Unmarshal(out, &got); status != http.StatusOK || err != nil || len(got) != 1 ||
		got[0].Step != "research-p3.8xlarge/right-sizing/p3.2xlarge" || got[0].Kind != fleet.ChangeInstanceType || got[0].Recorded {
		t.Fatalf("GET %s = %d %s (%v); want research's change and its step, not recorded", path, status, out, err)
	}
	if want := testNow.Truncate(time.Minute); !det.asked.To.Equal(want) || !det.asked.From.Equal(want.Add(-14*24*time.Hour)) {
		t.Errorf("DetectedChanges asked %v to %v; want the 14 days to %v", det.asked.From, det.asked.To, want)
	}

	f.srv.Applied = &fakeApplier{}
	if status, out := f.do(t, "GET", path, f.secrets[gpucost.RoleViewer], nil); status != http.StatusServiceUnavailable {
		t.Errorf("GET %s from a server that detects nothing = %d %s, want 503", path, status, out)
	}
}
