package enforce

import (
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// TestUndo: an action in force is reversed; one reversed since is a conflict, one the log does
// not hold not found, and one that changed nothing is refused as Reverse refuses it.
func TestUndo(t *testing.T) {
	vm := &Ref{Kind: KindEC2, ID: "i-1"}
	log := []LogEntry{
		{ID: 1, Action: Action{Policy: "p", Action: ActStop, Resource: vm, Result: ResultDone}},
		{ID: 2, Action: Action{Policy: "p", Action: ActStart, Resource: vm, Result: ResultDone, Undoes: 1}},
		{ID: 3, Action: Action{Policy: "p", Action: ActStop, Resource: vm, Result: ResultDone}},
		{ID: 4, Action: Action{Policy: "p", Action: ActStop, Resource: vm, DryRun: true, Result: ResultPlanned}},
	}
	if a, err := Undo(log, 3); err != nil || a.Action != ActStart || a.Undoes != 3 {
		t.Errorf("Undo(3, in force) = %+v, %v; want the start that undoes 3", a, err)
	}
	for _, tc := range []struct {
		id   int64
		code string
		want string
	}{
		{1, gpucost.EConflict, "already reversed or superseded (see gpucost enforce log --resource i-1)"},
		{9, gpucost.ENotFound, "no action 9 in the action log"},
		{4, gpucost.EInvalid, "changed nothing"},
	} {
		_, err := Undo(log, tc.id)
		if gpucost.ErrorCode(err) != tc.code || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Undo(%d) = %v; want a %s error containing %q", tc.id, err, tc.code, tc.want)
		}
	}
}
