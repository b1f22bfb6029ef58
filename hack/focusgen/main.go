// Command focusgen writes a generated FOCUS bill (billing/focusgen) for the import speed
// comparison in hack/bench-duckdb:
//
//	go run ./hack/focusgen -rows 1000000 -shape distinct -o bill.csv
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/gpucost/gpucost/billing/focusgen"
)

func main() {
	rows := flag.Int("rows", 1_000_000, "rows to write")
	shape := flag.String("shape", "aggregating", "aggregating (hourly rows, ~24 to a line) or distinct (every row a line)")
	out := flag.String("o", "", "file to write (required)")
	flag.Parse()
	if err := run(*rows, *shape, *out); err != nil {
		fmt.Fprintln(os.Stderr, "focusgen:", err)
		os.Exit(1)
	}
}

func run(rows int, shapeName, out string) error {
	shape, err := focusgen.ParseShape(shapeName)
	if err != nil {
		return err
	}
	if out == "" {
		return fmt.Errorf("name the file to write with -o")
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	b := focusgen.Bill{Rows: rows, Shape: shape}
	if _, err := b.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", out, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Printf("%s: %d %s rows, %d daily lines\n", out, rows, shape, b.Lines())
	return nil
}
