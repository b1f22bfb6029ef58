package present

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpucost/gpucost/queue"
)

// QueuePush is queue push's table: what was pushed, and the first malformed lines.
func QueuePush(q string, st queue.PushStats) Table {
	r := Table{
		Title:   "Pushed to queue " + q,
		Columns: []string{"Pushed", "Duplicates", "Malformed"},
		Rows:    [][]string{{strconv.FormatInt(st.Pushed, 10), strconv.FormatInt(st.Duplicates, 10), strconv.FormatInt(st.Malformed, 10)}},
		Right:   []int{0, 1, 2},
		JSON:    st,
	}
	if st.Malformed > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d malformed lines were queued to be dead-lettered with their errors (see them with: gpucost queue dead --queue %s); the first:", st.Malformed, q))
		for _, m := range st.FirstErrors {
			r.Notes = append(r.Notes, "  "+m)
		}
	}
	return r
}

// QueueStatus is queue status's table: the counts, the rate and the ETA, and the newest dead
// letters under it.
func QueueStatus(st queue.Status) Table {
	eta := ""
	switch {
	case st.Pending+st.InFlight == 0:
		eta = "finished"
	case st.ETA > 0:
		eta = st.ETA.String()
	default:
		eta = "unknown (nothing done in the last minute)"
	}
	var notes []string
	if len(st.RecentDead) > 0 {
		notes = append(notes, fmt.Sprintf("Newest dead letters (all of them: gpucost queue dead --queue %s):", st.Queue))
	}
	for _, d := range st.RecentDead {
		notes = append(notes, fmt.Sprintf("  %s: %s", d.ID, d.Error))
	}
	return Table{
		Title:   "Queue " + st.Queue,
		Notes:   notes,
		Columns: []string{"Pending", "In flight", "Done", "Dead", "Rate", "ETA"},
		Rows: [][]string{{fmt.Sprint(st.Pending), fmt.Sprint(st.InFlight), fmt.Sprint(st.Done), fmt.Sprint(st.Dead),
			fmt.Sprintf("%.1f/s", st.Rate), eta}},
		Right: []int{0, 1, 2, 3, 4},
		JSON:  st,
	}
}

// QueueDead is queue dead's table: each dead letter with its error and the end of its stderr.
func QueueDead(q string, dead []queue.DeadLetter) Table {
	r := Table{Title: "Dead letters of queue " + q, JSON: dead,
		Columns: []string{"ID", "Source", "Error", "Exit", "Deliveries", "Stderr (end)"}, Right: []int{3, 4}}
	for _, d := range dead {
		exit := ""
		if d.ExitCode != nil {
			exit = strconv.Itoa(*d.ExitCode)
		}
		r.Rows = append(r.Rows, []string{d.ID, d.Source, d.Error, exit, strconv.FormatUint(d.Deliveries, 10), LastLine(d.Stderr)})
	}
	return r
}

// LastLine returns the last non-empty line of s, for a table cell.
func LastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
