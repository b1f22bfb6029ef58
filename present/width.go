package present

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jedib0t/go-pretty/v6/text"
)

// Fitting a table to a terminal, as kubectl does: when a table's rendered width passes
// Table.Width, long text cells (evidence, messages, labels) are cut with "…" first, then the
// columns of lowest Table.Priority are left out, and a note under the table names them and
// says that --wide shows all. Width 0 (output piped or redirected, --wide) prints every
// column whole.

// textShare is the share of the width a left-aligned text cell keeps before columns are left
// out: a third, 26 characters of 80.
const textShare = 3

// minTextCell is the narrowest a text cell is cut to when leaving columns out is not enough.
const minTextCell = 12

// fitWidth returns t fitted to t.Width: what writeTable prints.
func fitWidth(t Table) Table {
	if t.Width <= 0 || len(t.Columns) == 0 {
		return t
	}
	widths := columnWidths(t)
	if renderedWidth(widths, nil) <= t.Width {
		return t
	}
	// Long text first: a 1,300-character evidence cell says its gist in a third of the width.
	textMax := max(minTextCell, t.Width/textShare)
	for i, w := range widths {
		if w > textMax && !slices.Contains(t.Right, i) {
			widths[i] = textMax
		}
	}
	var dropped []int
	for renderedWidth(widths, dropped) > t.Width {
		i := leastImportant(t, dropped)
		if i < 0 {
			break
		}
		dropped = append(dropped, i)
	}
	for renderedWidth(widths, dropped) > t.Width {
		i := widestText(t, widths, dropped)
		if i < 0 || widths[i] <= minTextCell {
			break
		}
		widths[i] = max(minTextCell, widths[i]-(renderedWidth(widths, dropped)-t.Width))
	}
	return cutTable(t, widths, dropped)
}

// columnWidths returns the widest cell of each column, header included, in terminal cells.
func columnWidths(t Table) []int {
	widths := make([]int, len(t.Columns))
	measure := func(i int, s string) {
		for _, line := range strings.Split(s, "\n") {
			widths[i] = max(widths[i], text.RuneWidthWithoutEscSequences(line))
		}
	}
	for i, c := range t.Columns {
		measure(i, c)
	}
	for _, row := range t.Rows {
		for i, c := range row {
			if i < len(widths) {
				measure(i, c)
			}
		}
	}
	return widths
}

// renderedWidth is the width of a table in writeTable's style ("│ a │ b │") with the given
// column widths, the dropped columns left out.
func renderedWidth(widths []int, dropped []int) int {
	n := 1
	for i, w := range widths {
		if !slices.Contains(dropped, i) {
			n += w + 3
		}
	}
	return n
}

// leastImportant returns the column to leave out next: the lowest Priority (a column without
// one has 0), the rightmost of equals; never the first column, which names the row. -1 when
// only the first is left.
func leastImportant(t Table, dropped []int) int {
	best, bestPri := -1, 0
	for i := len(t.Columns) - 1; i > 0; i-- {
		if slices.Contains(dropped, i) {
			continue
		}
		p := 0
		if i < len(t.Priority) {
			p = t.Priority[i]
		}
		if best < 0 || p < bestPri {
			best, bestPri = i, p
		}
	}
	return best
}

// widestText returns the widest left-aligned column still shown, or -1.
func widestText(t Table, widths []int, dropped []int) int {
	best := -1
	for i, w := range widths {
		if !slices.Contains(dropped, i) && !slices.Contains(t.Right, i) && (best < 0 || w > widths[best]) {
			best = i
		}
	}
	return best
}

// cutTable returns t without the dropped columns, its cells cut to widths, and a note naming
// what was left out.
func cutTable(t Table, widths []int, dropped []int) Table {
	out := t
	out.Columns, out.Rows, out.Right, out.Priority = nil, nil, nil, nil
	keep := make([]int, 0, len(t.Columns))
	for i := range t.Columns {
		if !slices.Contains(dropped, i) {
			keep = append(keep, i)
		}
	}
	var names []string
	for _, i := range dropped {
		names = append(names, t.Columns[i])
	}
	for j, i := range keep {
		out.Columns = append(out.Columns, t.Columns[i])
		if slices.Contains(t.Right, i) {
			out.Right = append(out.Right, j)
		}
	}
	cut := false
	for _, row := range t.Rows {
		r := make([]string, 0, len(keep))
		for _, i := range keep {
			c := ""
			if i < len(row) {
				c = row[i]
			}
			if s := truncateCell(c, widths[i]); s != c {
				c, cut = s, true
			}
			r = append(r, c)
		}
		out.Rows = append(out.Rows, r)
	}
	out.Notes = slices.Clone(t.Notes)
	switch {
	case len(names) > 0:
		out.Notes = append(out.Notes, fmt.Sprintf("Columns left out to fit %d characters: %s; --wide shows all.", t.Width, strings.Join(names, ", ")))
	case cut:
		out.Notes = append(out.Notes, fmt.Sprintf("Long cells cut with … to fit %d characters; --wide shows them whole.", t.Width))
	}
	return out
}

// truncateCell cuts each line of s to w terminal cells, the last one "…".
func truncateCell(s string, w int) string {
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		if text.RuneWidthWithoutEscSequences(line) > w {
			lines[i] = text.Trim(line, w-1) + "…"
		}
	}
	return strings.Join(lines, "\n")
}
