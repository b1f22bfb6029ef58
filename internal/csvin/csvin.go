// Package csvin reads the small CSV inputs of gpucost — inventories, usage series, workload
// lists — by their header's column names. Every error is a gpucost.EInvalid error that names
// the flag, the file, the line and the column.
package csvin

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/gpucost/gpucost"
)

// File is an open CSV file whose header has been read.
type File struct {
	flag, name string
	f          *os.File
	r          *csv.Reader
	header     []string
	col        map[string]int // lower-cased header name → index
	line       int            // of the record read last
}

// Open opens name and reads its header, which must hold the columns need. flag names the
// input in messages, such as "--usage".
func Open(flag, name string, need ...string) (*File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "%s: %w", flag, err)
	}
	c := &File{flag: flag, name: name, f: f, r: csv.NewReader(f), col: map[string]int{}}
	c.r.FieldsPerRecord = -1
	if c.header, err = c.r.Read(); err != nil {
		f.Close()
		return nil, gpucost.Errorf(gpucost.EInvalid, "%s %s: reading the header: %w", flag, name, err)
	}
	for i, h := range c.header {
		c.col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	for _, n := range need {
		if _, ok := c.col[n]; !ok {
			f.Close()
			return nil, gpucost.Errorf(gpucost.EInvalid, "%s %s: line 1: no %s column; the header needs %s", flag, name, n, strings.Join(need, ", "))
		}
	}
	return c, nil
}

// Header returns the header's column names as written.
func (c *File) Header() []string { return c.header }

// Has reports whether the header holds the column name (lower case, as Get takes it).
func (c *File) Has(name string) bool {
	_, ok := c.col[name]
	return ok
}

// Each calls fn with every record, then closes the file.
func (c *File) Each(fn func(rec []string) error) error {
	defer c.f.Close()
	for {
		rec, err := c.r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return gpucost.Errorf(gpucost.EInvalid, "%s %s: %w", c.flag, c.name, err)
		}
		c.line, _ = c.r.FieldPos(0)
		if err := fn(rec); err != nil {
			return err
		}
	}
}

// Get returns the trimmed value of column name in rec, "" if the file or record lacks it.
func (c *File) Get(rec []string, name string) string {
	if i, ok := c.col[name]; ok && i < len(rec) {
		return strings.TrimSpace(rec[i])
	}
	return ""
}

// Errorf is an EInvalid error at column name of the record read last.
func (c *File) Errorf(name, format string, args ...any) error {
	return gpucost.Errorf(gpucost.EInvalid, "%s %s:%d:%d: %s", c.flag, c.name, c.line, c.col[name]+1, fmt.Sprintf(format, args...))
}

// Number reads column name as a non-negative number.
func (c *File) Number(rec []string, name string) (float64, error) {
	v, err := strconv.ParseFloat(c.Get(rec, name), 64)
	if err != nil || v < 0 || v != v {
		return 0, c.Errorf(name, "%s %q is not a non-negative number", name, c.Get(rec, name))
	}
	return v, nil
}
