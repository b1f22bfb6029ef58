package main

import (
	"io"
	"os"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/present"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// result is what a command prints (present.Table).
type result = present.Table

// validOutput checks the --output flag.
func (e *env) validOutput() error {
	switch e.output {
	case "table", "json", "csv":
		return nil
	}
	return gpucost.Errorf(gpucost.EInvalid, "--output %q: use table, json or csv", e.output)
}

// print writes r in the --output format.
func (e *env) print(r result) error {
	if err := e.validOutput(); err != nil {
		return err
	}
	r.Width = e.tableWidth()
	return present.Write(e.stdout, e.stderr, e.output, r)
}

func writeJSON(w io.Writer, r result) error { return present.WriteJSON(w, r) }

// progress returns a progress bar on stderr, shown only when stderr is a terminal: logs and CI
// get no control characters. max is the total, or -1 when unknown.
func (e *env) progress(max int64, desc string, bytes bool) *progressbar.ProgressBar {
	f, ok := e.stderr.(*os.File)
	visible := ok && term.IsTerminal(int(f.Fd()))
	return progressbar.NewOptions64(max, progressbar.OptionSetWriter(e.stderr),
		progressbar.OptionSetDescription(desc), progressbar.OptionShowBytes(bytes), progressbar.OptionShowCount(),
		progressbar.OptionSetVisibility(visible), progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionClearOnFinish())
}
