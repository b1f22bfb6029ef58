package enforce

import (
	"reflect"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func TestRecordRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	spent, limit := gpucost.USD(21_000e9), 2
	a := Action{Policy: "p", Action: ActStop, Result: ResultFailed, Error: "refused",
		Resource: &Ref{Kind: KindEC2, ID: "i-1", Region: "us-east-1"},
		Evidence: Evidence{Rule: "r", Spent: &spent, Currency: "USD", SpotCap: &limit, ScopeTags: map[string]string{"team": "a"}}}
	r, err := Record(at, a)
	if err != nil {
		t.Fatal(err)
	}
	if r.ResourceKind != KindEC2 || r.ResourceID != "i-1" || r.Policy != "p" || r.Action != ActStop || r.Result != ResultFailed || r.Error != "refused" {
		t.Errorf("Record(%+v) = %+v; want its columns", a, r)
	}
	r.ID = 7
	e, err := EntryOf(r)
	if err != nil || e.ID != 7 || !e.At.Equal(at) || !reflect.DeepEqual(e.Action, a) {
		t.Errorf("EntryOf(Record(a)) = %+v, %v; want a back", e, err)
	}
	for _, bad := range []Action{{Action: ActStop, Result: ResultDone}, {Policy: "p", Result: ResultDone}, {Policy: "p", Action: ActStop}} {
		if _, err := Record(at, bad); gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("Record(%+v) = %v, want EInvalid", bad, err)
		}
	}
	if _, err := EntryOf(gpucost.ActionRecord{ID: 3, Detail: []byte("{")}); err == nil {
		t.Error("EntryOf(a record with broken JSON) succeeded")
	}
}
