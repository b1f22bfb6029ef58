package azure

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gpucost/gpucost/billing/internal/csvscan"
	"github.com/gpucost/gpucost/billing/internal/totals"

	"github.com/gpucost/gpucost"
)

// Dataset is which of Cost Management's two cost details datasets a file is.
type Dataset string

// The datasets. Actual cost is what the invoice charges: commitments cost what they cost when
// bought, and the usage they cover costs nothing. Amortized cost spreads each commitment over
// the days it covers: covered usage carries its share, unused commitment hours appear as
// UnusedReservation or UnusedSavingsPlan rows, and the purchases are left out.
const (
	Actual    Dataset = "actual"
	Amortized Dataset = "amortized"
)

// Options say what the caller knows about a file.
type Options struct {
	// Dataset is the dataset the file is, when the caller knows it (an export's metric); empty
	// means the rows tell. A row the named dataset cannot hold is an error.
	Dataset Dataset
	// Currency is the billing currency of files without a currency column (the EA usage
	// schemas of 2019); empty means the file must have one.
	Currency string
}

// Stats describes what a read found, as every bill reader reports it (totals.Stats), and what
// only Azure's cost details have. Version is the Schema and the Dataset, as "EA actual" or "MCA
// amortized" (the Schema alone when the dataset is undetermined); Format "csv" or "csv.gz"; Rows
// the lines emitted; Totals the exact sums by billing currency, Sums.Source being the sum of
// CostColumn as written; Types the rows by ChargeType as written ("" for files without the
// column); Unknown the columns outside the cost details schemas, sorted, not read. When a read
// fails, it covers the rows emitted before the failure.
type Stats struct {
	totals.Stats
	Schema string // SchemaEA, SchemaMCA, SchemaMPA or SchemaPAYG
	// Dataset is the dataset as the caller named it or as the rows showed it; empty when no row
	// tells (without commitments the two datasets hold the same rows and costs).
	Dataset     Dataset
	DatasetFrom string // what decided Dataset: "the caller", or the first row that showed it

	// CostColumn is the source column whose sum is Sums.Source: CostInBillingCurrency, or
	// Cost, PreTaxCost or ExtendedCost in the older schemas, as the header spells it.
	CostColumn string
}

// Read reads an Azure cost details CSV file — gzip-compressed or not, told by its first bytes —
// and calls emit for each row, in file order, telling the dataset from the rows. See
// Options.Read.
func Read(r io.Reader, name string, emit func(*gpucost.CostLine) error) (Stats, error) {
	return Options{}.Read(r, name, emit)
}

// ReadFile reads the cost details file at path. See Options.Read.
func ReadFile(path string, emit func(*gpucost.CostLine) error) (Stats, error) {
	return Options{}.ReadFile(path, emit)
}

// ReadFile reads the cost details file at path with these options. See Options.Read.
func (o Options) ReadFile(path string, emit func(*gpucost.CostLine) error) (Stats, error) {
	f, err := os.Open(path)
	if err != nil {
		return Stats{}, gpucost.Errorf(gpucost.EInvalid, "read Azure cost details: %w", err)
	}
	defer f.Close()
	return o.Read(f, path, emit)
}

// Read reads an Azure cost details CSV file and calls emit for each row, in file order. Columns
// are found by name in any order and any casing or spacing; a byte order mark is ignored; gzip
// is detected by its magic bytes. name is used in messages.
//
// The *CostLine handed to emit is reused for the next row: emit must copy what it keeps. Its
// strings are shared between lines, and its Tags and Extra maps are shared by every line with the
// same values: emit must not modify them.
//
// Read stops at the first value it cannot read, with a gpucost.EInvalid error naming the file,
// line and column, the value, and what to do. A file without the required columns fails before
// any line is emitted, naming all of them and the schema detected. Negative amounts (refunds,
// credits) are kept as such. Reading streams, so a truncated file fails when the damage is
// reached, after the rows before it were emitted: a caller that stores files whole keeps what
// emit gives it pending until Read returns nil.
func (o Options) Read(r io.Reader, name string, emit func(*gpucost.CostLine) error) (Stats, error) {
	if o.Dataset != "" && o.Dataset != Actual && o.Dataset != Amortized {
		return Stats{}, gpucost.Errorf(gpucost.EInvalid, "read Azure cost details %s: dataset %q is neither %q nor %q", name, o.Dataset, Actual, Amortized)
	}
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	format := "csv"
	var src io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return Stats{}, gpucost.Errorf(gpucost.EInvalid, "read Azure cost details %s: not a readable gzip file (%v); download it again", name, err)
		}
		defer zr.Close()
		src, format = zr, "csv.gz"
	}
	rd := newReader(name, o, emit)
	err := rd.readCSV(csvscan.New(src, 256<<10))
	return rd.stats(format), err
}

// Detect reports whether the start of a file — its header line, or more — is an Azure cost
// details file's: it has a cost column, a date column and a column only Azure cost details have
// (MeterCategory, ConsumedService, SubscriptionGuid, …). A gzip-compressed start is read through.
// Importers use it to choose a reader.
func Detect(header []byte) bool {
	if len(header) >= 2 && header[0] == 0x1f && header[1] == 0x8b {
		if zr, err := gzip.NewReader(bytes.NewReader(header)); err == nil {
			header, _ = io.ReadAll(io.LimitReader(zr, 1<<20)) // a truncated stream yields what it has
		}
	}
	if i := bytes.IndexByte(header, '\n'); i >= 0 {
		header = header[:i+1]
	}
	sc := csvscan.New(bytes.NewReader(header), len(header)+1)
	if !sc.Next() {
		return false
	}
	names := make([]string, sc.Count())
	for i := range names {
		names[i] = string(sc.Field(i))
	}
	return looksAzure(names)
}

// readCSV reads the header, then every record.
func (rd *reader) readCSV(sc *csvscan.Scanner) error {
	if !sc.Next() {
		if sc.Err() != nil {
			return rd.scanError(sc)
		}
		return gpucost.Errorf(gpucost.EInvalid, "read Azure cost details %s: the file is empty; want a cost details CSV with a header line", rd.name)
	}
	names := make([]string, sc.Count())
	for i := range names {
		names[i] = string(sc.Field(i))
	}
	names[0] = strings.TrimPrefix(names[0], "\ufeff")
	sc.Names = names
	p, err := newPlan(names, rd.opt.Currency)
	if err != nil {
		return fmt.Errorf("read Azure cost details %s: %w", rd.name, err)
	}
	rd.setPlan(p, sc)
	for sc.Next() {
		if sc.Count() != len(names) {
			return gpucost.Errorf(gpucost.EInvalid, "read Azure cost details %s:%d: %d fields where the header has %d; the file is damaged or not one CSV",
				rd.name, sc.Line(), sc.Count(), len(names))
		}
		if err := rd.row(sc.Line()); err != nil {
			return err
		}
	}
	if sc.Err() != nil {
		return rd.scanError(sc)
	}
	return nil
}

func (rd *reader) scanError(sc *csvscan.Scanner) error {
	return sc.Invalid("read Azure cost details " + rd.name)
}

// stats returns the Stats so far.
func (rd *reader) stats(format string) Stats {
	st := Stats{Stats: totals.Stats{Format: format}, Dataset: rd.dataset, DatasetFrom: rd.datasetFrom}
	rd.tally.Fill(&st.Stats, true)
	if p := rd.plan; p != nil {
		st.Schema, st.Unknown, st.CostColumn = p.schema, p.sortedUnknown(), p.names[p.index[aCost]]
		st.Version = p.schema
		if st.Dataset != "" {
			st.Version += " " + string(st.Dataset)
		}
	}
	return st
}
