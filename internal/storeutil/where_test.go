package storeutil

import (
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func TestWhere(t *testing.T) {
	var args []any
	arg := func(v any) string { args = append(args, v); return "?" }
	since := time.Unix(100, 0)
	for _, tc := range []struct {
		name  string
		where func() (string, error)
		want  string
		args  int
	}{
		{"audit all", func() (string, error) { return AuditWhere(gpucost.AuditFilter{}, arg) }, "", 0},
		{"audit action", func() (string, error) { return AuditWhere(gpucost.AuditFilter{Action: gpucost.AuditEnforce}, arg) }, " AND action = ?", 1},
		{"audit prefix", func() (string, error) { return AuditWhere(gpucost.AuditFilter{Action: "bill."}, arg) }, " AND substr(action, 1, ?) = ?", 2},
		{"audit actor", func() (string, error) { return AuditWhere(gpucost.AuditFilter{Actor: "cli"}, arg) },
			" AND (actor = ? OR substr(actor, 1, ?) = ?)", 3},
		{"actions", func() (string, error) {
			return ActionWhere(gpucost.ActionFilter{Since: since, Policy: "p", Resource: "i-1"}, arg)
		}, " AND at_ns >= ? AND policy = ? AND resource_id = ?", 3},
		{"deliveries", func() (string, error) {
			return DeliveryWhere(gpucost.DeliveryFilter{Since: since, KeyPrefix: "budget:é", Target: "t"}, arg)
		}, " AND at_ns >= ? AND substr(key, 1, ?) = ? AND target = ?", 4},
	} {
		args = nil
		if got, err := tc.where(); err != nil || got != tc.want || len(args) != tc.args {
			t.Errorf("%s: where = %q, %v with %d args; want %q with %d", tc.name, got, err, len(args), tc.want, tc.args)
		}
	}
	if _, err := DeliveryWhere(gpucost.DeliveryFilter{KeyPrefix: "budget:é"}, arg); args[len(args)-2] != 8 {
		t.Errorf("DeliveryWhere(prefix budget:é) counts %v, %v; want 8 characters, not 9 bytes", args[len(args)-2], err)
	}
	for name, err := range map[string]error{
		"audit":      func() error { _, err := AuditWhere(gpucost.AuditFilter{Limit: -1}, arg); return err }(),
		"actions":    func() error { _, err := ActionWhere(gpucost.ActionFilter{Limit: -1}, arg); return err }(),
		"deliveries": func() error { _, err := DeliveryWhere(gpucost.DeliveryFilter{Limit: -1}, arg); return err }(),
	} {
		if gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("%s where with limit -1 = %v, want EInvalid", name, err)
		}
	}
}
