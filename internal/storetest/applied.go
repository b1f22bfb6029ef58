package storetest

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// RunAppliedSteps runs the cases of gpucost.AppliedStepStore: steps kept as recorded and read
// back in order of when they were applied, a second record of one id refused, removal, and
// incomplete steps refused.
func RunAppliedSteps(t *testing.T, open Open) {
	t.Run("RoundTrip", func(t *testing.T) { testAppliedRoundTrip(t, open) })
	t.Run("ConflictAndRemove", func(t *testing.T) { testAppliedConflictAndRemove(t, open) })
	t.Run("Refusals", func(t *testing.T) { testAppliedRefusals(t, open) })
}

var appliedAt = time.Date(2026, 10, 15, 0, 0, 0, 0, time.UTC)

func appliedSteps() []gpucost.AppliedStep {
	return []gpucost.AppliedStep{
		{ID: "research-p3.8xlarge/spot/spot", Group: "research-p3.8xlarge", Lever: "spot", Action: "run on spot with checkpoints",
			Predicted: gpucost.USD(12_345_678_901_234), Before: gpucost.USD(20_000_000_000_000), After: gpucost.USD(7_654_321_098_766),
			Provider: "aws", Region: "us-east-1", InstanceType: "p3.8xlarge", Namespace: "research",
			Resources: []string{"research-0", "research-1"}, At: appliedAt.Add(time.Hour), How: gpucost.AppliedManual,
			Actor: "cli root@build-1", Note: "ünïcode kept", Recorded: appliedAt.Add(2*time.Hour + 123_456_000)},
		// Applied earlier, recorded later: the list is in order of when steps were applied.
		{ID: "fleet-a2-highgpu-1g/right-size/a2-highgpu-1g", Group: "fleet-a2-highgpu-1g", Lever: "right-size", Action: "release",
			Predicted: gpucost.Money{Nanos: 1, Currency: "EUR"}, Before: gpucost.Money{Nanos: 2, Currency: "EUR"}, After: gpucost.Money{Nanos: 1, Currency: "EUR"},
			Provider: "gcp", Region: "europe-west4", InstanceType: "a2-highgpu-1g", Resources: []string{},
			At: appliedAt, How: gpucost.AppliedDetected + " instance type changed a2-highgpu-2g→a2-highgpu-1g",
			Actor: "token 3 (ci, editor)", Recorded: appliedAt.Add(3 * time.Hour)},
	}
}

func testAppliedRoundTrip(t *testing.T, open Open) {
	ctx := context.Background()
	st := open(t)
	if got, err := st.AppliedSteps(ctx); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("AppliedSteps() on an empty store = %#v, %v; want an empty list", got, err)
	}
	want := appliedSteps()
	for _, s := range want {
		if err := st.PutAppliedStep(ctx, s); err != nil {
			t.Fatalf("PutAppliedStep(%s) = %v", s.ID, err)
		}
	}
	got, err := st.AppliedSteps(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want = []gpucost.AppliedStep{want[1], want[0]}
	if len(got) != len(want) {
		t.Fatalf("AppliedSteps() = %d steps, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].At.Location() != time.UTC || got[i].Recorded.Location() != time.UTC {
			t.Errorf("AppliedSteps()[%d] times in %v and %v, want UTC", i, got[i].At.Location(), got[i].Recorded.Location())
		}
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("AppliedSteps()[%d] = %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

func testAppliedConflictAndRemove(t *testing.T, open Open) {
	ctx := context.Background()
	st := open(t)
	s := appliedSteps()[0]
	if err := st.PutAppliedStep(ctx, s); err != nil {
		t.Fatal(err)
	}
	again := s
	again.At = s.At.Add(24 * time.Hour)
	if err := st.PutAppliedStep(ctx, again); gpucost.ErrorCode(err) != gpucost.EConflict {
		t.Errorf("PutAppliedStep(%s) twice = %v, want an EConflict", s.ID, err)
	}
	got, err := st.RemoveAppliedStep(ctx, s.ID)
	if err != nil || !got.At.Equal(s.At) {
		t.Errorf("RemoveAppliedStep(%s) = applied at %v, %v; want the first record, at %v", s.ID, got.At, err, s.At)
	}
	if _, err := st.RemoveAppliedStep(ctx, s.ID); gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("RemoveAppliedStep(%s) twice = %v, want an ENotFound", s.ID, err)
	}
	if err := st.PutAppliedStep(ctx, again); err != nil {
		t.Errorf("PutAppliedStep(%s) after its removal = %v", s.ID, err)
	}
	if list, err := st.AppliedSteps(ctx); err != nil || len(list) != 1 || !list[0].At.Equal(again.At) {
		t.Errorf("AppliedSteps() = %+v, %v; want the second record alone", list, err)
	}
}

func testAppliedRefusals(t *testing.T, open Open) {
	ctx := context.Background()
	st := open(t)
	for name, mod := range map[string]func(*gpucost.AppliedStep){
		"no id":    func(s *gpucost.AppliedStep) { s.ID = "" },
		"no group": func(s *gpucost.AppliedStep) { s.Group = "" },
		"no time":  func(s *gpucost.AppliedStep) { s.At = time.Time{} },
		"no how":   func(s *gpucost.AppliedStep) { s.How = "" },
	} {
		s := appliedSteps()[0]
		mod(&s)
		if err := st.PutAppliedStep(ctx, s); gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("PutAppliedStep(%s) = %v, want an EInvalid", name, err)
		}
	}
	if list, err := st.AppliedSteps(ctx); err != nil || len(list) != 0 {
		t.Errorf("AppliedSteps() after refusals = %d steps, %v; want none", len(list), err)
	}
}
