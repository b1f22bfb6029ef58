package gcp

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/gpucost/gpucost/billing/internal/csvscan"
	"github.com/gpucost/gpucost/billing/internal/readerr"

	"github.com/gpucost/gpucost"
)

// plan is the column layout of a CSV file.
type plan struct {
	names   []string
	index   [numFields]int // the column of each field, -1 when absent
	cols    []colPlan      // the columns read, in file order
	dimCols []colPlan      // the columns of dimension fields, in field order
	rowCols []colPlan      // the others: times, amounts, quantities, credits, records
	records bool           // a record is written as JSON text into one column
	unknown []string
	dialect string
	style   string
}

// colPlan is what one column feeds: a field, or a record written as JSON text.
type colPlan struct {
	col   int
	field field
	rec   *node // a record column ("adjustment_info" holding {"type":…}); nil for a field
}

// columnNode finds the schema node a CSV column name stands for.
func columnNode(name string) (*node, string) {
	clean := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(name, "\ufeff")))
	return byColumn[clean], clean
}

// newPlan classifies a header. It fails when the header is not an export's, or lacks required
// columns.
func newPlan(file string, names []string) (*plan, error) {
	p := &plan{names: names, dialect: DialectStandard}
	for i := range p.index {
		p.index[i] = -1
	}
	dotted, underscore := 0, 0
	for i, name := range names {
		n, clean := columnNode(name)
		if n == nil {
			p.unknown = append(p.unknown, name)
			continue
		}
		if strings.HasPrefix(n.name, "resource") {
			p.dialect = DialectDetailed
		}
		if strings.Contains(n.name, ".") {
			if clean == n.name {
				dotted++
			} else {
				underscore++
			}
		}
		switch n.kind {
		case kSkip:
		case kRecord:
			p.cols = append(p.cols, colPlan{col: i, rec: n})
			p.records = true
		default:
			if p.index[n.field] < 0 {
				p.index[n.field] = i
				p.cols = append(p.cols, colPlan{col: i, field: n.field})
			}
		}
	}
	p.style = style(dotted, underscore)
	for _, c := range p.cols {
		if c.rec == nil && c.field < field(numDims) {
			p.dimCols = append(p.dimCols, c)
		} else {
			p.rowCols = append(p.rowCols, c)
		}
	}
	slices.SortFunc(p.dimCols, func(a, b colPlan) int { return int(a.field) - int(b.field) })
	if p.index[aCost] < 0 && p.index[tStart] < 0 {
		return nil, notExport(file, names)
	}
	var missing []string
	for _, f := range required {
		if p.index[f] < 0 {
			missing = append(missing, fieldNames[f])
		}
	}
	if len(missing) > 0 {
		return nil, missingColumns(file, p.dialect, missing)
	}
	slices.Sort(p.unknown)
	return p, nil
}

func style(dotted, underscore int) string {
	switch {
	case dotted > 0 && underscore > 0:
		return NamesMixed
	case underscore > 0:
		return NamesUnderscore
	}
	return NamesDotted
}

// readCSV reads the header, then every record.
func (rd *reader) readCSV(sc *csvscan.Scanner) (*plan, error) {
	if !sc.Next() {
		if sc.Err() != nil {
			return nil, rd.scanError(sc)
		}
		return nil, gpucost.Errorf(gpucost.EInvalid, "read GCP billing export %s: the file is empty; want a CSV with a header line", rd.name)
	}
	names := make([]string, sc.Count())
	for i := range names {
		names[i] = string(sc.Field(i))
	}
	sc.Names = names
	p, err := newPlan(rd.name, names)
	if err != nil {
		return nil, err
	}
	rd.src = &csvSource{rd: rd, plan: p, sc: sc}
	rd.detailed = p.dialect == DialectDetailed
	for sc.Next() {
		if sc.Count() != len(names) {
			return p, gpucost.Errorf(gpucost.EInvalid, "read GCP billing export %s:%d: %d fields where the header has %d; the file is damaged or not one CSV",
				rd.name, sc.Line(), sc.Count(), len(names))
		}
		if err := rd.csvRow(sc, p); err != nil {
			return p, err
		}
	}
	if sc.Err() != nil {
		return p, rd.scanError(sc)
	}
	return p, nil
}

func (rd *reader) scanError(sc *csvscan.Scanner) error {
	return sc.Invalid("read GCP billing export " + rd.name)
}

// csvRow maps the current record. An empty cell is null, as BigQuery writes NULL in CSV. The
// dimension cells are keyed as they lie in the scanner's buffer and put only when the key is
// new, unless a record column (JSON text) may hold dimensions too.
func (rd *reader) csvRow(sc *csvscan.Scanner, p *plan) error {
	rd.begin(sc.Line())
	for _, c := range p.rowCols {
		b, e := csvField(sc, c.col)
		if len(b) == 0 {
			continue
		}
		if c.rec == nil {
			rd.put(c.field, b, e, c.col)
			continue
		}
		if err := rd.recordCell(c, b, e); err != nil {
			return err
		}
	}
	if p.records {
		rd.src.putDims()
		return rd.row(rd.cellKey())
	}
	key := rd.key[:0]
	for _, c := range p.dimCols {
		b, e := csvField(sc, c.col)
		key = binary.AppendUvarint(key, uint64(len(b))<<2|uint64(e))
		key = append(key, b...)
	}
	rd.key = key
	return rd.row(key)
}

// recordCell reads a record written as JSON text into one column, as TO_JSON_STRING writes it:
// adjustment_info as {"id":…,"type":…,"mode":…}.
func (rd *reader) recordCell(c colPlan, b []byte, e esc) error {
	if e == escCSV {
		b = rd.unquote(b)
	}
	v, err := jsonText(b)
	if err == nil && v.kind == jNull {
		return nil
	}
	if err == nil && v.kind != jObject {
		err = jsonErr(0, "a JSON %s where a record belongs", kindName(v.kind))
	}
	if err == nil {
		_, err = rd.fields(c.rec, v.raw, 0, 1, c.col)
	}
	if err != nil {
		return cellError(fmt.Sprintf("%s:%d", rd.name, rd.line), readerr.Column(c.col+1, rd.src.(*csvSource).plan.names[c.col]),
			string(b), "a JSON object of the record's fields", err)
	}
	return nil
}

// csvSource locates cells of a CSV file: a cell's pos is its column.
type csvSource struct {
	rd   *reader
	plan *plan
	sc   *csvscan.Scanner
}

// putDims puts the dimension cells of the current record.
func (s *csvSource) putDims() {
	for _, c := range s.plan.dimCols {
		if b, e := csvField(s.sc, c.col); len(b) > 0 {
			s.rd.put(c.field, b, e, c.col)
		}
	}
}

func (s *csvSource) where(_ *cell, f field) (string, string) { return s.whereRow(), s.column(f) }

func (s *csvSource) whereRow() string { return fmt.Sprintf("%s:%d", s.rd.name, s.rd.line) }

func (s *csvSource) column(f field) string {
	if i := s.plan.index[f]; i >= 0 {
		return readerr.Column(i+1, s.plan.names[i])
	}
	return readerr.Column(0, fieldNames[f])
}

// csvField returns field i of the current record as written and how it is escaped: escCSV when
// it holds doubled quotes.
func csvField(sc *csvscan.Scanner, i int) ([]byte, esc) {
	b, e := sc.Raw(i)
	if e == csvscan.Doubled {
		return b, escCSV
	}
	return b, escNone
}
