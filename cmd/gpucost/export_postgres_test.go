package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/postgres/pgtest"
)

// TestExportFOCUSPostgresMatchSQLite imports each FOCUS file into a SQLite file and a
// PostgreSQL database and checks that export focus writes the same bytes from both: the stored
// lines of every import, every column (PostgreSQL keeps a line as a narrow row and its context
// apart, docs/architecture.md "Storing bill lines"), and with --all every row of the bills.
func TestExportFOCUSPostgresMatchSQLite(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	for _, src := range focusSources(t) {
		t.Run(filepath.Base(filepath.Dir(src))+"_"+filepath.Base(src), func(t *testing.T) {
			dir := t.TempDir()
			lite, pg := filepath.Join(dir, "gpucost.db"), pgtest.Start(t)
			outs := map[string][2]string{}
			for i, db := range []string{lite, pg} {
				if code, _, errOut := runAt(t, db, now, append(keepX(t, src), src)...); code != exitOK {
					t.Fatalf("import billing %s into %s: exit %d\n%s", src, db, code, errOut)
				}
				for _, args := range [][]string{{"--since", "2000-01-01", "--until", "2100-01-01"}, {"--all"}} {
					path := filepath.Join(dir, args[0][2:]+[]string{"-sqlite", "-postgres"}[i]+".csv")
					args = append([]string{"export", "focus", "--out", path}, args...)
					if code, _, errOut := runAt(t, db, now, args...); code != exitOK {
						t.Fatalf("%v on %s: exit %d\n%s", args, db, code, errOut)
					}
					b, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					o := outs[args[4]]
					o[i] = string(b)
					outs[args[4]] = o
				}
			}
			for flag, o := range outs {
				if rows := strings.Count(o[0], "\n") - 1; rows < 1 {
					t.Errorf("export focus %s wrote %d rows from SQLite", flag, rows)
				}
				if o[0] != o[1] {
					t.Errorf("export focus %s: PostgreSQL wrote\n%.1500s\nSQLite wrote\n%.1500s", flag, o[1], o[0])
				}
			}
		})
	}
}

// keepX returns the arguments that import the CSV bill src keeping its x_ columns, so that
// the lines' extra columns are stored too.
func keepX(t *testing.T, src string) []string {
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	header, _ := bufio.NewReader(f).ReadString('\n')
	var keep []string
	for _, c := range strings.Split(strings.TrimSpace(header), ",") {
		if c = strings.Trim(c, `"`); strings.HasPrefix(c, "x_") {
			keep = append(keep, c)
		}
	}
	args := []string{"import", "billing"}
	if len(keep) > 0 {
		args = append(args, "--keep-columns", strings.Join(keep, ","))
	}
	return args
}
