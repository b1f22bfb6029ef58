package present

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Data columns: CSV and JSON rows carry plain numbers, the unit in the key
// (docs/architecture.md "Output conventions"). A table's cells are what people read, "$599.36",
// "79.0%", "0.0 GiB"; dataColumns reads each column back into plain numbers when every cell
// of it is a number in one unit, so the table, the CSV and the JSON rows render from the same
// cells and no builder formats a figure twice.

// unitForm is how a unit shows on a cell: a prefix or a suffix around the number.
type unitForm struct{ prefix, suffix, unit string }

// unitForms are the units cells show, tried in order.
var unitForms = []unitForm{
	{"$", "", "usd"}, {"", "%", "pct"}, {"", " GiB", "gib"}, {"", " GB", "gb"}, {"", " MiB", "mib"},
	{"", " W", "w"}, {"", " °C", "c"}, {"", " TFLOPS", "tflops"},
}

var (
	camelWord  = regexp.MustCompile(`([a-z])([A-Z])`)
	perGPUHour = regexp.MustCompile(`/(\w+ )?GPU-h\b`)
	gpuHours   = regexp.MustCompile(`GPU-h\b`)
	endHours   = regexp.MustCompile(` h$`)
)

// missingCell reports whether c stands for no value.
func missingCell(c string) bool { return c == "" || c == "–" || c == "-" || c == "—" }

// cellNumber reads a cell such as "$1,234.50", "-$3.00", "79.0%", "EUR 2.000", "1h30m0s" or
// "12" as a plain number and its unit ("" for a bare number, "s" for a duration in seconds).
func cellNumber(c string) (num, unit string, ok bool) {
	c = strings.TrimSpace(c)
	if goDuration(c) { // "1h30m0s", "250ms": seconds, the one unit of durations
		if d, err := time.ParseDuration(c); err == nil {
			return strconv.FormatFloat(d.Seconds(), 'f', -1, 64), "s", true
		}
	}
	sign := ""
	if rest, found := strings.CutPrefix(c, "−"); found {
		sign, c = "-", rest
	} else if strings.HasPrefix(c, "-") && len(c) > 1 && !plainNumber(c) {
		sign, c = "-", c[1:]
	}
	if code, v, ok := currencyCell(c); ok && plainNumber(v) {
		return sign + strings.ReplaceAll(v, ",", ""), strings.ToLower(code), true
	}
	for _, f := range unitForms {
		v, ok := strings.CutPrefix(c, f.prefix)
		if !ok {
			continue
		}
		if v, ok = strings.CutSuffix(v, f.suffix); ok && plainNumber(v) {
			return sign + strings.ReplaceAll(v, ",", ""), f.unit, true
		}
	}
	if plainNumber(c) {
		return sign + strings.ReplaceAll(c, ",", ""), "", true
	}
	return "", "", false
}

// The cell matchers below read a cell byte by byte: a report by GPU has 10,000 rows of 16
// cells, and regular expressions cost it 0.07 cpu-s (docs/architecture.md "Speed of the
// reports"). csv_match_test.go checks each against the expression it stands for.

// plainNumber reports whether s is a decimal number, its whole part grouped by commas or not:
// ^[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$.
func plainNumber(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	n := leadingDigits(s)
	if n == 0 {
		return false
	}
	if s = s[n:]; s != "" && s[0] == ',' {
		if n > 3 {
			return false
		}
		for s != "" && s[0] == ',' {
			if leadingDigits(s[1:]) != 3 {
				return false
			}
			s = s[4:]
		}
	}
	if s != "" && s[0] == '.' {
		n := leadingDigits(s[1:])
		if n == 0 {
			return false
		}
		s = s[1+n:]
	}
	return s == ""
}

// currencyCell splits a cell such as "EUR 2.000" into its currency code and the rest:
// ^([A-Z]{3}) (.+)$.
func currencyCell(c string) (code, rest string, ok bool) {
	if len(c) < 5 || c[3] != ' ' || strings.IndexByte(c[4:], '\n') >= 0 {
		return "", "", false
	}
	for i := range 3 {
		if c[i] < 'A' || c[i] > 'Z' {
			return "", "", false
		}
	}
	return c[:3], c[4:], true
}

// goDuration reports whether s is a duration as time.Duration's String writes it, such as
// "1h30m0s" or "-250ms": ^-?([0-9]+(\.[0-9]+)?(h|m|s|ms|µs|us|ns))+$.
func goDuration(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for s != "" {
		n := leadingDigits(s)
		if n == 0 {
			return false
		}
		if s = s[n:]; s != "" && s[0] == '.' {
			f := leadingDigits(s[1:])
			if f == 0 {
				return false
			}
			s = s[1+f:]
		}
		// A unit is followed by a digit or the end, so "ms" is never "m" then "s".
		switch {
		case strings.HasPrefix(s, "ms"), strings.HasPrefix(s, "us"), strings.HasPrefix(s, "ns"):
			s = s[2:]
		case strings.HasPrefix(s, "µs"):
			s = s[len("µs"):]
		case strings.HasPrefix(s, "h"), strings.HasPrefix(s, "m"), strings.HasPrefix(s, "s"):
			s = s[1:]
		default:
			return false
		}
	}
	return true
}

// leadingDigits returns the number of ASCII digits s starts with.
func leadingDigits(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// dataColumn is one column as CSV and JSON rows carry it.
type dataColumn struct {
	key     string   // snake_case, the unit last: "cost_usd", "util_pct", "gpu_hours"
	numeric bool     // every cell is a number in unit, a word (words), or missing
	words   bool     // some cells of a numeric column are words without a digit, such as "unstable"
	unit    string   // "usd", "pct", …; "" for bare numbers and text
	cells   []string // plain numbers ("" when missing) and words when numeric, else the cells as shown
	units   []string // by row, the unit of each cell of a column of figures in several units
}

// word reports whether c is a word standing where a number would, such as "unstable" or
// "never": it holds no digit.
func word(c string) bool { return !strings.ContainsAny(c, "0123456789") }

// dataColumns returns t's columns, less TableOnly, with numeric columns read into plain
// numbers. t.Units, where set, names a column's unit its cells do not show. A column of figures
// in several units, such as a table of one figure a row, gets its units in a column of its own
// after it ("value", "value_unit").
func dataColumns(t Table) []dataColumn {
	var cols []dataColumn
	for j, title := range t.Columns {
		if slices.Contains(t.TableOnly, j) {
			continue
		}
		col := dataColumn{cells: make([]string, len(t.Rows))}
		nums, units := make([]string, len(t.Rows)), make([]string, len(t.Rows))
		seen, numeric, mixed, unit := 0, true, false, ""
		for i, row := range t.Rows {
			c := ""
			if j < len(row) {
				c = row[j]
			}
			col.cells[i] = c
			if missingCell(c) || !numeric {
				continue
			}
			n, u, ok := cellNumber(c)
			switch {
			case !ok && word(c):
				nums[i], col.words = c, true
				continue
			case !ok:
				numeric = false
				continue
			case seen > 0 && u != unit:
				mixed = true
			}
			nums[i], units[i] = n, u
			if seen == 0 {
				unit = u
			}
			seen++
		}
		switch {
		case numeric && seen > 0 && mixed && !col.words:
			col.numeric, col.cells, col.units = true, nums, units
			col.key = dataKey(title, "")
			cols = append(cols, col, dataColumn{key: col.key + "_unit", cells: units})
			continue
		case numeric && seen > 0 && !mixed:
			col.numeric, col.cells, col.unit = true, nums, unit
		default:
			col.words = false
		}
		if j < len(t.Units) && t.Units[j] != "" {
			col.unit = t.Units[j]
		}
		col.key = dataKey(title, col.unit)
		cols = append(cols, col)
	}
	return cols
}

// dataKey turns a column title and its cells' unit into a CSV header and JSON row key:
// "Cost" in dollars is "cost_usd", "Util" in percent "util_pct", "$/used GPU-h" is
// "usd_per_used_gpu_hours", "VRAM peak" in GiB "vram_peak_gib".
func dataKey(title, unit string) string {
	s := camelWord.ReplaceAllString(title, "$1 $2") // FOCUS's "BilledCost" is billed_cost
	s = perGPUHour.ReplaceAllString(s, "/${1}GPU hour")
	s = endHours.ReplaceAllString(gpuHours.ReplaceAllString(s, "GPU hours"), " hours")
	s = strings.NewReplacer("$/", " usd per ", "$", " usd ", "%", " pct ", "/", " per ", "#", " number ").Replace(s)
	key := JSONKey(s)
	if unit != "" && !slices.Contains(strings.Split(key, "_"), unit) {
		key += "_" + unit
	}
	if parts := strings.Split(key, "_"); len(parts) > 1 && strings.IndexAny(key[:1], "0123456789") == 0 {
		// "95% interval" is interval_95_pct: a key starts with a letter.
		n := 1
		if len(parts) > 2 && slices.Contains([]string{"pct", "usd", "gib", "gb", "s"}, parts[1]) {
			n = 2
		}
		key = strings.Join(append(parts[n:], parts[:n]...), "_")
	}
	return key
}

// writeCSV writes t's data columns: a header of keys, then plain numbers and text.
func writeCSV(out io.Writer, t Table) error {
	cols := dataColumns(t)
	w := csv.NewWriter(out)
	rec := make([]string, len(cols))
	for j, c := range cols {
		rec[j] = c.key
	}
	w.Write(rec)
	for i := range t.Rows {
		for j, c := range cols {
			rec[j] = c.cells[i]
		}
		w.Write(rec)
	}
	w.Flush()
	return w.Error()
}

// jsonRows returns t's rows as objects keyed by their data columns' keys: numbers as JSON
// numbers, amounts of money as exact decimal strings, missing values as null.
func jsonRows(t Table) []map[string]any {
	cols := dataColumns(t)
	rows := make([]map[string]any, len(t.Rows))
	for i := range t.Rows {
		m := make(map[string]any, len(cols))
		for _, c := range cols {
			v := c.cells[i]
			switch {
			case !c.numeric:
				m[c.key] = v
			case v == "":
				m[c.key] = nil
			case c.words && word(v):
				m[c.key] = v
			case c.units != nil && isCurrency(c.units[i]), c.units == nil && isCurrency(c.unit):
				m[c.key] = v
			default:
				m[c.key] = json.Number(v)
			}
		}
		rows[i] = m
	}
	return rows
}

// RowColumn is one key of the objects --output json writes for a table without a JSON value of
// its own (jsonRows): Kind is "number", "decimal" (money, an exact decimal string), "figure"
// (either, in the unit its _unit column names) or "text"; a number or decimal is null where the
// cell is missing, and a word where Words is set ("unstable").
type RowColumn struct {
	Key, Kind string
	Words     bool
}

// RowColumns returns the keys and kinds of t's JSON rows, in column order.
func RowColumns(t Table) []RowColumn {
	var out []RowColumn
	for _, c := range dataColumns(t) {
		kind := "text"
		switch {
		case c.numeric && c.units != nil:
			kind = "figure"
		case c.numeric && isCurrency(c.unit):
			kind = "decimal"
		case c.numeric:
			kind = "number"
		}
		out = append(out, RowColumn{c.key, kind, c.words})
	}
	return out
}

// isCurrency reports whether unit is a currency code, lower-case ("usd", "eur"), and not one
// of the three-letter units of unitForms: money goes to JSON as a decimal string.
func isCurrency(unit string) bool {
	return len(unit) == 3 && !slices.Contains([]string{"gib", "mib", "pct"}, unit)
}
