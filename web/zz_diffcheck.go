//go:build diffcheck

package web

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/gpucost/gpucost"
)

var compareMu sync.Mutex
var compareN, compareBad int

func oldFuncs(a *assets) template.FuncMap {
	return template.FuncMap{
		"asset":    a.URL,
		"money":    func(m gpucost.Money) string { return m.Dollars() },
		"moneys":   formatMoneys,
		"pct":      formatPct,
		"stat":     formatStat,
		"hours":    formatHours,
		"dur":      formatDuration,
		"date":     func(t time.Time) string { return formatTime(t, "2006-01-02") },
		"datetime": func(t time.Time) string { return formatTime(t, "2006-01-02 15:04 UTC") },
		"num":      func(n uint64) string { return groupDigits(strconv.FormatUint(n, 10)) },
		"ratio":    func(a, b gpucost.Money) float64 { return ratio(a, b) },
		"level":    budgetLevel,
		"json": func(v any) (template.JS, error) {
			s, err := chartJSON(v)
			return template.JS(s), err
		},
	}
}

func init() {
	pageWriter = func(a *assets, name string, l layout) ([]byte, error) {
		got, err := writePage(a, name, l)
		fsys := os.DirFS("/work/wt/diet/web/templates")
		layoutT := template.Must(template.New("layout.html").Funcs(oldFuncs(a)).ParseFS(fsys, "layout.html"))
		t := template.Must(template.Must(layoutT.Clone()).ParseFS(fsys, name))
		var want bytes.Buffer
		werr := t.ExecuteTemplate(&want, "layout", l)
		compareMu.Lock()
		defer compareMu.Unlock()
		compareN++
		if !bytes.Equal(got, want.Bytes()) || (err == nil) != (werr == nil) {
			compareBad++
			os.WriteFile(fmt.Sprintf("/tmp/diet/cmp-%d-%s.got", compareN, name), got, 0o644)
			os.WriteFile(fmt.Sprintf("/tmp/diet/cmp-%d-%s.want", compareN, name), want.Bytes(), 0o644)
			fmt.Fprintf(os.Stderr, "MISMATCH %d %s err=%v werr=%v\n", compareN, name, err, werr)
		}
		fmt.Fprintf(os.Stderr, "COMPARED %d %s\n", compareN, name)
		return got, err
	}
	_ = fs.Glob
}
