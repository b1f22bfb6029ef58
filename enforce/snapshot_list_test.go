package enforce

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestSnapshotList(t *testing.T) {
	ctx := context.Background()
	a, b := Resource{ID: "a"}, Resource{ID: "b"}
	var s Snapshot
	notes, err := s.List(ctx, []Inventory{inventory{rs: []Resource{a}}, inventory{rs: []Resource{b}}})
	if err != nil || len(notes) != 0 || len(s.Resources) != 2 || s.Resources[0].ID != "a" || s.Resources[1].ID != "b" {
		t.Errorf("List(a, b) = %v, %v, notes %q; want a and b, no note", s.Resources, err, notes)
	}
	notes, err = s.List(ctx, nil)
	if err != nil || len(s.Resources) != 0 || len(notes) != 1 || !strings.HasPrefix(notes[0], "No inventory: give --aws-region, --gce-project") {
		t.Errorf("List(no inventory) = %v, %v, notes %q; want none and a note saying what to give", s.Resources, err, notes)
	}
	if _, err := s.List(ctx, []Inventory{inventory{err: errors.New("403 forbidden")}}); err == nil || err.Error() != "list resources: 403 forbidden" {
		t.Errorf("List(failing inventory) = %v; want the inventory's error", err)
	}
}
