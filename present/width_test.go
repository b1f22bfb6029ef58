package present

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// wideAlerts is a table like report alerts': short columns beside a long evidence text.
func wideAlerts() Table {
	evidence := strings.Repeat("memory in use above 85% of total for 23h17m; ", 30)
	t := Table{
		Title:    "Alerts",
		Columns:  []string{"State", "Severity", "Rule", "GPU", "Host", "Labels", "Start", "End", "Duration", "Worst", "Evidence"},
		Priority: []int{7, 4, 10, 5, 9, 0, 6, 1, 3, 2, 8},
		Right:    []int{8, 9},
		Notes:    []string{"a note"},
	}
	for range 3 {
		t.Rows = append(t.Rows, []string{"firing", "critical", "vram_oom_risk", "GPU-10ac32fc-0b5b-1e67-10aa-32fc0b5b1e67", "train-h100-01",
			"container=training,job=pretrain-7b-run3,namespace=training,pod=pretrain-7b-01", "2026-11-26 14:43", "2026-11-27 14:00", "23h17m0s", "95.6", evidence})
	}
	return t
}

// TestFitWidth prints the same table at 80 and 200 characters and with no limit: every table
// line fits, the lowest-priority columns go first and are named under the table, and the
// highest stay.
func TestFitWidth(t *testing.T) {
	for _, tc := range []struct {
		width      int
		keep, drop []string
	}{
		{80, []string{"RULE", "HOST", "EVIDENCE"}, []string{"Labels", "End", "Worst"}},
		{200, []string{"RULE", "HOST", "EVIDENCE", "GPU", "START", "SEVERITY"}, []string{"Labels", "End"}},
		{0, []string{"LABELS", "END", "WORST", "EVIDENCE"}, nil},
	} {
		tab := wideAlerts()
		tab.Width = tc.width
		var b bytes.Buffer
		writeTable(&b, tab)
		out := b.String()
		header := ""
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "│ STATE") {
				header = line
			}
			if tc.width > 0 && strings.ContainsAny(line, "│┌└├") && utf8.RuneCountInString(line) > tc.width {
				t.Errorf("width %d: line of %d characters: %s", tc.width, utf8.RuneCountInString(line), line)
			}
		}
		for _, c := range tc.keep {
			if !strings.Contains(header, " "+c+" ") {
				t.Errorf("width %d: header %q lacks %s", tc.width, header, c)
			}
		}
		for _, c := range tc.drop {
			if strings.Contains(header, " "+strings.ToUpper(c)+" ") {
				t.Errorf("width %d: header %q keeps %s", tc.width, header, c)
			}
		}
		note := "--wide shows all."
		if tc.width == 0 {
			if strings.Contains(out, note) || strings.Contains(out, "…") {
				t.Errorf("no width limit: the table was cut:\n%s", out)
			}
			continue
		}
		if !strings.Contains(out, "Columns left out to fit") || !strings.Contains(out, note) || !strings.Contains(out, strings.Join(tc.drop[:2], ", ")) || !strings.Contains(out, "…") {
			t.Errorf("width %d: want the left-out columns named (%v) and the evidence cut with …:\n%s", tc.width, tc.drop, out)
		}
		if !strings.Contains(out, "a note") {
			t.Errorf("width %d: the table's own note was lost:\n%s", tc.width, out)
		}
	}
}

// TestFitWidthRightAligned keeps right-aligned columns right-aligned after columns before
// them are left out.
func TestFitWidthRightAligned(t *testing.T) {
	tab := Table{Columns: []string{"Name", "Comment", "Cost"}, Right: []int{2}, Priority: []int{0, 0, 1}, Width: 30,
		Rows: [][]string{{"a", strings.Repeat("x", 60), "$1.00"}}}
	got := fitWidth(tab)
	if len(got.Columns) != 2 || got.Columns[1] != "Cost" || len(got.Right) != 1 || got.Right[0] != 1 {
		t.Errorf("fitWidth(30) = columns %q, right %v; want Name and Cost, Cost right-aligned", got.Columns, got.Right)
	}
}
