package present

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
)

// TestEnforceSavingsAddsUp: a policy stopping three machines for $0.335 a month each would save
// $1.01 ($1.005); its rows add up to its note, where rounding each printed $0.34 three times.
// A row that stopped nothing is left out, an unpriced one says so, and the lever's note sums
// the printed rows of its machines.
func TestEnforceSavingsAddsUp(t *testing.T) {
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var replays []enforce.Replayed
	for i, c := range amounts335(t, 3) {
		replays = append(replays, enforce.Replayed{Policy: "idle-4h", Resource: enforce.Ref{ID: fmt.Sprintf("i-%d", i)},
			HeldHours: 730, StoppedHours: 73, GPUHours: 584, Monthly: c, Priced: true})
	}
	replays = append(replays,
		enforce.Replayed{Policy: "idle-4h", Resource: enforce.Ref{ID: "i-unpriced"}, HeldHours: 730, StoppedHours: 73},
		enforce.Replayed{Policy: "idle-4h", Resource: enforce.Ref{ID: "i-busy"}, HeldHours: 730, Priced: true})
	lever := []gpucost.Recommendation{{Action: "stop i-0 and i-1 at night", MonthlySaving: usd(t, "0.67"), Resources: []string{"i-0", "i-1"}}}
	tab := EnforceSavings(replays, lever, from, from.AddDate(0, 0, 30), nil)
	if len(tab.Rows) != 4 || tab.Rows[3][7] != "unpriced" {
		t.Fatalf("EnforceSavings rows = %q, want the 3 priced machines and the unpriced one", tab.Rows)
	}
	if got := sumDollarsColumn(t, tab.Rows[:3], 7); got.Dollars() != "$1.01" {
		t.Errorf("EnforceSavings saving column = %q, adds up to %s, want $1.01", columnCells(tab.Rows, 7), got.Dollars())
	}
	if want := "idle-4h would save $1.01 a month"; !strings.HasPrefix(tab.Notes[0], want) {
		t.Errorf("EnforceSavings first note = %q, want it to start %q", tab.Notes[0], want)
	}
	if want := "idle-4h on the same 2 machines: " + parseDollarsCell(t, tab.Rows[0][7]).Add(parseDollarsCell(t, tab.Rows[1][7])).Dollars(); !strings.Contains(tab.Notes[1], want) {
		t.Errorf("EnforceSavings lever note = %q, want it to say %q, the two rows as printed", tab.Notes[1], want)
	}
}

// TestEnforceAvoidedAddsUp: three stops that avoided $0.335 each print $1.01 ($1.005) in all;
// the priced rows add up to it, and an unpriced one says so.
func TestEnforceAvoidedAddsUp(t *testing.T) {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var av []enforce.Avoided
	for i, c := range append(amounts335(t, 3), gpucost.Money{}) {
		av = append(av, enforce.Avoided{Entry: enforce.LogEntry{ID: int64(i + 1), At: at, Action: enforce.Action{Policy: "idle-4h",
			Action: enforce.ActStop, Resource: &enforce.Ref{Kind: "ec2", ID: fmt.Sprintf("i-%d", i)}}},
			Until: at.Add(time.Hour), Hours: 1, GPUHours: 8, Cost: c, Priced: i < 3})
	}
	tab := EnforceAvoided(av)
	if tab.Rows[3][7] != "unpriced" {
		t.Errorf("EnforceAvoided unpriced row = %q, want unpriced", tab.Rows[3])
	}
	if got := sumDollarsColumn(t, tab.Rows[:3], 7); got.Dollars() != "$1.01" || tab.Notes[0] != "32.0 GPU-hours avoided, USD 1.01." {
		t.Errorf("EnforceAvoided cost column = %q adds up to %s, note %q; want $1.01 and a note of USD 1.01", columnCells(tab.Rows, 7), got.Dollars(), tab.Notes[0])
	}
}
