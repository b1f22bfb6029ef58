package billimport

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// TestRefusalsChangeNothing stores a bill, then makes each kind of refused import: a bad value
// in each of the FOCUS, CUR 2.0 and GCP readers (in a batch with a good file), an amount only
// --lenient reads, another bill of the stored period, two bills of one period in one batch and
// one part of a stored export with --replace. Each refusal names the file, the line and the
// column (number and name) where a value is at fault, and says what to do; after each, the
// store holds the same imports, lines, totals and kept sources as before.
func TestRefusalsChangeNothing(t *testing.T) {
	ctx := context.Background()
	db := newStore(t)
	im := &Importer{Store: db}
	_, p1, p2 := curParts(t)
	if _, err := im.Import(ctx, []Source{{Path: p1}, {Path: p2}}, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := im.Import(ctx, []Source{{Path: focusSample}}, Options{}); err != nil {
		t.Fatal(err)
	}
	before := stateOf(t, db)
	if len(before.Imports) != 2 || before.Lines == 0 {
		t.Fatalf("stored %d imports and %d lines; want 2 imports with lines", len(before.Imports), before.Lines)
	}

	// badRow returns the bill at path with the first s in its third line replaced by with.
	badRow := func(path, s, with string) []byte {
		lines := bytes.SplitAfter(readFile(t, path), []byte("\n"))
		lines[2] = bytes.Replace(lines[2], []byte(s), []byte(with), 1)
		return bytes.Join(lines, nil)
	}
	gcp := "../gcp/testdata/detailed_export.jsonl"
	good := writeFile(t, "good/azure.csv", readFile(t, "../azure/testdata/ea_actual.csv"))
	focusBad := writeFile(t, "bad/focus.csv", badRow(focusSample, ".0", ".x"))
	curBad := writeFile(t, "bad/cur.csv", badRow(curSample, ".0", ".x"))
	gcpBad := writeFile(t, "bad/gcp.jsonl", badRow(gcp, `"cost":`, `"cost":"x",`))
	lenientOnly := writeFile(t, "bad/sheet.csv", []byte(strings.Replace(spreadsheetFOCUS, "$2.50,1,USD", "$2.50,7,USD", 1)))
	cases := []struct {
		name    string
		sources []string
		o       Options
		code    string
		want    []*regexp.Regexp
	}{
		{"FOCUS bad amount", []string{good, focusBad}, Options{}, gpucost.EInvalid,
			res(`bad/focus\.csv:3: column \d+ \(BilledCost\): "[^"]*\.x[^"]*" is not a decimal`, `fix the value in the file and import it again`)},
		{"CUR bad number", []string{curBad, good}, Options{}, gpucost.EInvalid,
			res(`bad/cur\.csv:3: column 22 \(line_item_usage_amount\): "1\.x" is not a number`, `correct the value or re-export the file`)},
		{"GCP bad JSON", []string{gcpBad}, Options{}, gpucost.EInvalid,
			res(`bad/gcp\.jsonl:3: byte \d+`, `export it again`)},
		{"amount only --lenient reads", []string{lenientOnly}, Options{}, gpucost.EInvalid,
			res(`bad/sheet\.csv:2: column 1 \(BilledCost\): "\$10,000\.00"`, `or import with --lenient, which reads it as 10000\.00`)},
		{"another bill of a stored period", []string{writeFile(t, "b/restated.csv", partial(readFile(t, focusSample), true))}, Options{}, gpucost.EConflict,
			res(`was imported on .* as import 2 \(`, `--replace`, `gpucost import remove 2`)},
		{"two bills of one period in a batch", []string{writeFile(t, "c/one.csv", partial(readFile(t, focusSample), true)), writeFile(t, "c/two.csv", partial(partial(readFile(t, focusSample), true), true))}, Options{Replace: true}, gpucost.EConflict,
			res(`not parts of one export`, `import them one at a time`)},
		{"one part of a stored export", []string{writeFile(t, "d/cur2-00001.csv", readFile(t, p1))}, Options{Replace: true}, gpucost.EConflict,
			res(`an export of 2 parts \(cur2-00001\.csv, cur2-00002\.csv\)`, `gpucost import billing --replace `)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var srcs []Source
			for _, p := range c.sources {
				srcs = append(srcs, Source{Path: p, Name: p})
			}
			got, err := im.Import(ctx, srcs, c.o)
			if gpucost.ErrorCode(err) != c.code {
				t.Fatalf("Import(%s) = %v; want %s", c.name, err, c.code)
			}
			for _, re := range c.want {
				if !re.MatchString(err.Error()) {
					t.Errorf("Import(%s) = %v; want it to match %s", c.name, err, re)
				}
			}
			for _, r := range got {
				if !r.Skipped && !strings.HasPrefix(r.Status, "refused: ") && !strings.HasPrefix(r.Status, "not stored: ") {
					t.Errorf("%s: status %q, want refused or not stored", filepath.Base(r.File), r.Status)
				}
			}
			sameState(t, db, before, c.name)
		})
	}
}

func res(patterns ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		out[i] = regexp.MustCompile(p)
	}
	return out
}
