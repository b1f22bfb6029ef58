package enforce

import (
	"slices"

	"github.com/gpucost/gpucost"
)

// Undo returns the action that reverses the logged action id (Reverse) when it is still in
// force (InForce). It returns an ENotFound error when entries hold no action id, and an
// EConflict one when a later action already reversed or superseded it.
func Undo(entries []LogEntry, id int64) (Action, error) {
	i := slices.IndexFunc(entries, func(en LogEntry) bool { return en.ID == id })
	if i < 0 {
		return Action{}, gpucost.Errorf(gpucost.ENotFound, "no action %d in the action log; gpucost enforce log lists them with their ids", id)
	}
	a, err := Reverse(entries[i])
	if err != nil {
		return Action{}, err
	}
	if !slices.ContainsFunc(InForce(entries), func(en LogEntry) bool { return en.ID == id }) {
		return Action{}, gpucost.Errorf(gpucost.EConflict, "action %d was already reversed or superseded (see gpucost enforce log --resource %s)", id, entries[i].Action.Resource.ID)
	}
	return a, nil
}
