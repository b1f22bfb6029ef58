package catalog

import (
	"context"
	"testing"

	"github.com/gpucost/gpucost"
)

// SetSetting makes settingStore (gcp_committed_test.go) a gpucost.SettingStore.
func (s settingStore) SetSetting(_ context.Context, key, value string) error {
	s[key] = value
	return nil
}

func TestStoredSpotAdvisor(t *testing.T) {
	ctx := context.Background()
	st := settingStore{}
	if a, err := StoredSpotAdvisor(ctx, st); a != nil || err != nil {
		t.Errorf("StoredSpotAdvisor(no data) = %v, %v; want nil, nil", a, err)
	}
	want := readSpotAdvisorFixture(t)
	if err := KeepSpotAdvisor(ctx, st, want); err != nil {
		t.Fatal(err)
	}
	got, err := StoredSpotAdvisor(ctx, st)
	if err != nil || got == nil || got.Pools() != want.Pools() || got.Source != want.Source {
		t.Errorf("StoredSpotAdvisor after KeepSpotAdvisor = %v, %v; want %d pools from %s", got, err, want.Pools(), want.Source)
	}
	st[SettingSpotAdvisor] = "{"
	if _, err := StoredSpotAdvisor(ctx, st); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("StoredSpotAdvisor(damaged) = %v; want an invalid error naming the import", err)
	}
}
