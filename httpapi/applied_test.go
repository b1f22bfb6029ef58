package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
)

// fakeApplier records one step, research-p3.8xlarge/spot/spot-g6e.2xlarge, and knows no other.
type fakeApplier struct {
	applied []gpucost.AppliedStep
	realTo  time.Time
}

func (f *fakeApplier) ApplyStep(_ context.Context, id string, at time.Time, actor, note string) (gpucost.AppliedStep, error) {
	if id != "research-p3.8xlarge/spot/spot-g6e.2xlarge" {
		return gpucost.AppliedStep{}, gpucost.Errorf(gpucost.ENotFound, "the plan has no step %s", id)
	}
	s := gpucost.AppliedStep{ID: id, At: at, Actor: actor, Note: note, How: gpucost.AppliedManual, Predicted: gpucost.USD(5677_830_000_000)}
	f.applied = append(f.applied, s)
	return s, nil
}

func (f *fakeApplier) Realized(_ context.Context, q Query) (fleet.RealizedReport, error) {
	f.realTo = q.To
	return fleet.RealizedReport{Steps: []fleet.RealizedStep{}, Realized: gpucost.USD(1e9)}, nil
}

func TestApplyStep(t *testing.T) {
	f := newFixture(t)
	ap := &fakeApplier{}
	f.srv.Applied, f.srv.Audit = ap, f.db
	path := "/api/v1/recommendations/research-p3.8xlarge%2Fspot%2Fspot-g6e.2xlarge/apply"
	at := testNow.Add(-72 * time.Hour)
	body := `{"at": "` + at.Format(time.RFC3339) + `", "note": "ticket 42"}`
	for _, c := range []struct {
		name, path, secret, body string
		want                     int
	}{
		{"viewer", path, f.secrets[gpucost.RoleViewer], body, http.StatusForbidden},
		{"no token", path, "", body, http.StatusUnauthorized},
		{"bad body", path, f.secrets[gpucost.RoleAdmin], `{"at": 3}`, http.StatusBadRequest},
		{"future", path, f.secrets[gpucost.RoleAdmin], `{"at": "2030-01-01T00:00:00Z"}`, http.StatusBadRequest},
		{"unknown step", "/api/v1/recommendations/none%2Fspot%2Fspot/apply", f.secrets[gpucost.RoleAdmin], "", http.StatusNotFound},
		{"admin", path, f.secrets[gpucost.RoleAdmin], body, http.StatusCreated},
	} {
		status, out := f.do(t, "POST", c.path, c.secret, []byte(c.body), "Content-Type", "application/json")
		if status != c.want {
			t.Errorf("%s: POST %s = %d %s, want %d", c.name, c.path, status, out, c.want)
		}
	}
	if len(ap.applied) != 1 || !ap.applied[0].At.Equal(at) || ap.applied[0].Note != "ticket 42" || !strings.HasPrefix(ap.applied[0].Actor, "token ") {
		t.Fatalf("applied = %+v, want the one admin request's step at %v, by its token", ap.applied, at)
	}
	entries, err := f.db.Audit(context.Background(), gpucost.AuditFilter{Action: gpucost.AuditStepApply})
	if err != nil || len(entries) != 1 || entries[0].Target != "step research-p3.8xlarge/spot/spot-g6e.2xlarge" ||
		!strings.Contains(entries[0].Detail, "$5,677.83 a month") {
		t.Errorf("audit = %+v, %v; want one step.apply of the step with its predicted saving", entries, err)
	}

	status, out := f.do(t, "GET", "/api/v1/recommendations/realized?since=30d&to=2026-11-20T00:00:00Z", f.secrets[gpucost.RoleViewer], nil)
	if status != http.StatusOK || !json.Valid(out) || !strings.Contains(string(out), `"realized":"1"`) {
		t.Errorf("GET realized = %d %s, want 200 and the report", status, out)
	}
	if want := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC); !ap.realTo.Equal(want) {
		t.Errorf("Realized asked up to %v, want %v", ap.realTo, want)
	}
}
