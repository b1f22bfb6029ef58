package analyze

import "github.com/gpucost/gpucost"

// ParseAlertState reads which alerts a listing shows: "all", or one state (firing, resolved,
// or no data, also written no-data as on a command line). It returns the state as Alert.State
// spells it, or "all".
func ParseAlertState(s string) (string, error) {
	if s == "no-data" {
		s = string(AlertNoData)
	}
	switch AlertState(s) {
	case "all", Firing, Resolved, AlertNoData:
		return s, nil
	}
	return "", gpucost.Errorf(gpucost.EInvalid, "%q: use all, firing, no-data or resolved", s)
}
