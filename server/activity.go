package server

import (
	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/httpapi"
)

// storeActivity is the store's enforcement action log and alert delivery log together: what
// GET /api/v1/actions, /api/v1/deliveries and the dashboard's activity page read. The server,
// gpucost enforce and gpucost budget check all write them.
type storeActivity struct {
	enforce.Log
	gpucost.DeliveryLog
}

var _ httpapi.ActivityLog = storeActivity{}

// activityLog returns db's two logs as the server's activity log.
func activityLog(db gpucost.Store) httpapi.ActivityLog {
	return storeActivity{Log: enforce.Log{Store: db}, DeliveryLog: db}
}
