package web

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// The dashboard's pages are written by Go functions rather than html/template: executing a
// template looks methods up by run-time names, which makes the linker keep every exported
// method of every type in the binary (docs/architecture.md "Binary size"). The functions
// escape the way html/template does in each context, and wrote the same bytes as the
// templates they replaced for every page the web and dashboard tests render:
// text and quoted attributes get htmlEscape, URL attributes urlStart or urlPart, and chart
// data goes into <script type="application/json"> as chartJSON encodes it.

// htmlPage writes a page. Its methods remember the first error (chart data that cannot be
// encoded), so a page function writes on and render checks once.
type htmlPage struct {
	bytes.Buffer
	assets *assets
	err    error
}

// trusted is text already escaped for where it goes.
type trusted string

// s writes literal markup.
func (h *htmlPage) s(markup string) { h.WriteString(markup) }

// f writes format with each argument escaped for HTML text or a quoted attribute value: a
// string as it is, anything else as fmt.Sprint prints it (so a type's String method is used),
// a trusted value untouched. Format uses only %v verbs.
func (h *htmlPage) f(format string, args ...any) {
	for i, a := range args {
		switch v := a.(type) {
		case trusted:
			args[i] = string(v)
		case string:
			args[i] = htmlEscape(v)
		default:
			args[i] = htmlEscape(fmt.Sprint(v))
		}
	}
	fmt.Fprintf(h, format, args...)
}

// json writes v as chart data for a <script type="application/json"> block.
func (h *htmlPage) json(v any) {
	b, err := chartJSON(v)
	if err != nil && h.err == nil {
		h.err = err
	}
	h.WriteString(b)
}

// asset is the URL of a static file, escaped for a URL attribute.
func (h *htmlPage) asset(name string) trusted { return urlStart(h.assets.URL(name)) }

// fail records err unless an error is already recorded.
func (h *htmlPage) fail(err error) {
	if h.err == nil {
		h.err = err
	}
}

// htmlEscape escapes s as html/template does in text and quoted attribute values: & < > " '
// and + as entities, NUL as U+FFFD.
func htmlEscape(s string) string {
	if !strings.ContainsAny(s, "&<>\"'+\x00") {
		return s
	}
	return htmlEscaper.Replace(s)
}

var htmlEscaper = strings.NewReplacer("\x00", "\uFFFD", `"`, "&#34;", "&", "&amp;", "'", "&#39;", "+", "&#43;", "<", "&lt;", ">", "&gt;")

// urlStart escapes a value that begins a URL attribute (href, src, action) as html/template
// does: a URL with a scheme other than http, https or mailto becomes "#ZgotmplZ", bytes a URL
// cannot hold are percent-encoded (valid escapes and reserved characters kept), and the result
// is escaped for the attribute.
func urlStart(s string) trusted {
	if scheme, _, ok := strings.Cut(s, ":"); ok && !strings.Contains(scheme, "/") {
		if sc := strings.ToLower(scheme); sc != "http" && sc != "https" && sc != "mailto" {
			return "#ZgotmplZ"
		}
	}
	return trusted(htmlEscape(percentEncode(s, true)))
}

// urlPart escapes a value in a URL's query or fragment: every byte but letters, digits and
// - . _ ~ is percent-encoded.
func urlPart(s string) trusted { return trusted(htmlEscape(percentEncode(s, false))) }

// percentEncode is html/template's processURLOnto: with keepReserved, reserved characters and
// % stay as they are (normalising a URL); without, only unreserved ones do (escaping a part).
func percentEncode(s string, keepReserved bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("-._~", c) >= 0:
			b.WriteByte(c)
			continue
		case keepReserved && strings.IndexByte("!#$&*+,/:;=?@[]%", c) >= 0:
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02x", c)
	}
	return b.String()
}

// The formatting the pages share. Money is always shown as gpucost.Money formats it (Dollars).
func money(m gpucost.Money) string { return m.Dollars() }
func date(t time.Time) string      { return formatTime(t, "2006-01-02") }
func datetime(t time.Time) string  { return formatTime(t, "2006-01-02 15:04 UTC") }

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// writePage writes the page name (overview.html, …: the names of the templates it replaced)
// in the layout.
func writePage(a *assets, name string, l layout) ([]byte, error) {
	content, ok := pageWriters[name]
	if !ok {
		return nil, fmt.Errorf("no page %s", name)
	}
	h := &htmlPage{assets: a}
	writeLayout(h, l, content)
	return h.Bytes(), h.err
}

// pageWriters write each page's content inside the layout.
var pageWriters = map[string]func(*htmlPage, layout){
	"overview.html":        writeOverview,
	"gpus.html":            writeGPUs,
	"alerts.html":          writeAlertsPage,
	"costs.html":           writeCosts,
	"idle.html":            writeIdle,
	"recommendations.html": writeRecommendations,
	"budgets.html":         writeBudgets,
	"jobs.html":            writeJobs,
	"activity.html":        writeActivity,
	"login.html":           writeLogin,
	"error.html":           writeError,
}

// formatCount writes a count with thousands separators.
func formatCount(n uint64) string { return groupDigits(strconv.FormatUint(n, 10)) }

// strconvRate writes a rate to one decimal.
func strconvRate(r float64) string { return fmt.Sprintf("%.1f", r) }
