package billimport

import (
	"runtime/debug"
	"sync"
)

// tightAt is the lines of a file from which an import collects garbage more often until it is
// stored: past it the lines themselves take most of the memory (about 160 bytes each and their
// strings), and the collector's goal — twice what is live by default, 1.5× under gpucost
// import billing (cmd/gpucost/import_billing.go) — lets the store's garbage add hundreds of
// megabytes. 10 M distinct lines peaked at 2.1–2.4 GB with import billing's goal, 1.9 GB with
// this one.
const tightAt = 4 << 20

// tightPercent is the collector's goal meanwhile: 10% above what is live.
const tightPercent = 10

// gcTight lowers the collector's goal while any import holds a file of tightAt lines or more;
// imports may run side by side (the server's uploads), so the first to tighten keeps the
// setting to restore and the last to finish restores it.
var gcTight struct {
	sync.Mutex
	holders int
	old     int
}

// tighten lowers the collector's goal until the release it returns is called.
func tighten() (release func()) {
	gcTight.Lock()
	if gcTight.holders == 0 {
		gcTight.old = debug.SetGCPercent(tightPercent)
	}
	gcTight.holders++
	gcTight.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			gcTight.Lock()
			defer gcTight.Unlock()
			if gcTight.holders--; gcTight.holders == 0 {
				debug.SetGCPercent(gcTight.old)
			}
		})
	}
}
