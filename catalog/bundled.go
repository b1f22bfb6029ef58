package catalog

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/gpucost/gpucost"
)

// The bundled price files are embedded gzipped (data/NAME.gz beside data/NAME, the file people
// read and review): 735 KB of CSV, YAML and JSON take 66 KB of the binary
// (docs/architecture.md "Binary size"). TestBundledGzipMatches checks each .gz holds its file;
// go test ./catalog -run TestBundledGzipMatches -update-bundled rewrites them.
//
//go:embed data/*.gz
var bundledFS embed.FS

// readBundled returns the bundled file name ("data/aws_vms_gpu.csv"), from its gzipped copy.
func readBundled(name string) ([]byte, error) {
	f, err := bundledFS.Open(name + ".gz")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s.gz: %w", name, err)
	}
	return io.ReadAll(z)
}

// Source describes one price file the catalog was built from.
type Source struct {
	Provider string
	File     string    // the file as the catalog names it: "data/aws_vms_gpu.csv", or an imported file
	Origin   string    // where it came from: repository @ commit : path
	AsOf     time.Time // when its prices were taken
	AsOfNote string    // how AsOf is known
	Offers   int
	Issues   int
	Skipped  int // rows left out by design (CPU-only, not an NVIDIA GPU, GCP GPU rows joined into machine types)
}

// bundledAsOf is the day the bundled files were copied into gpucost. The SkyPilot commits they
// come from are named below, but their dates are not recorded with them, so the copy date is
// the honest "as of": prices are at least this old.
var bundledAsOf = time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)

const bundledAsOfNote = "The bundled files' dates are the day they were copied (2026-11-22); their commits' own dates are not recorded."

// bundled lists the embedded files and the catalog commit each was copied from.
var bundled = []Source{
	{Provider: "aws", File: "data/aws_vms_gpu.csv",
		Origin: "skypilot-org/skypilot-catalog@e385a0d3:catalogs/v8/aws/vms.csv (accelerator rows only)"},
	{Provider: "gcp", File: "data/gcp_vms_gpu.csv",
		Origin: "skypilot-org/skypilot-catalog@8427bbff:catalogs/v8/gcp/vms.csv (GPU rows; TPU rows dropped)"},
	{Provider: "lambda", File: "data/lambda_vms.csv",
		Origin: "skypilot-org/skypilot-catalog@95eaf484:catalogs/v8/lambda/vms.csv"},
	{Provider: "nebius", File: "data/nebius_vms.csv",
		Origin: "skypilot-org/skypilot-catalog@0082b043:catalogs/v8/nebius/vms.csv"},
}

// Bundled returns the catalog built from the price files embedded in the binary, with no
// imported offers. It needs no store and no network.
func Bundled() (*Catalog, error) {
	c := &Catalog{}
	for _, s := range bundled {
		body, err := readBundled(s.File)
		if err != nil {
			return nil, gpucost.Errorf(gpucost.EInternal, "read bundled catalog %s: %w", s.File, err)
		}
		im, err := ParseSkyPilot(bytes.NewReader(body), s.File, s.Provider)
		if err != nil {
			return nil, gpucost.Errorf(gpucost.EInternal, "read bundled catalog: %w", err)
		}
		for i := range im.Offers {
			im.Offers[i].Source = s.Origin
			im.Offers[i].AsOf = bundledAsOf
		}
		s.AsOf, s.AsOfNote = bundledAsOf, bundledAsOfNote
		s.Offers, s.Issues, s.Skipped = len(im.Offers), len(im.Issues), im.SkippedRows()
		var second []Source
		if s.Provider == "gcp" {
			y, err := c.reconcileGCP(im, s.Origin)
			if err != nil {
				return nil, err
			}
			second = append(second, y)
		}
		s.Issues = len(im.Issues)
		c.offers = append(c.offers, im.Offers...)
		c.issues = append(c.issues, im.Issues...)
		c.sources = append(append(c.sources, s), second...)
	}
	if err := c.addBundledAzure(); err != nil {
		return nil, err
	}
	sortIssues(c.issues)
	return c, nil
}

// FormatIssue writes an issue as "file:line: Field "value": reason".
func FormatIssue(is gpucost.CatalogIssue) string {
	out := is.Source
	if is.Line > 0 {
		out += ":" + strconv.Itoa(is.Line)
	}
	if is.Field != "" {
		out += ": " + is.Field
		if is.Value != "" {
			out += fmt.Sprintf(" %q", is.Value)
		}
	}
	return out + ": " + is.Reason
}

// sortIssues orders issues by source and line, so reports read top to bottom.
func sortIssues(issues []gpucost.CatalogIssue) {
	slices.SortStableFunc(issues, func(a, b gpucost.CatalogIssue) int {
		if a.Source != b.Source {
			if a.Source < b.Source {
				return -1
			}
			return 1
		}
		return a.Line - b.Line
	})
}
