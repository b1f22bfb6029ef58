package present

import (
	"fmt"
	"io"
	"time"

	"github.com/gpucost/gpucost/fleet"
)

// WriteDemoRealized writes to w, after the demo's headline, what each applied step saved on
// the demo's bill beside what the plan predicted, and the command that shows them per step;
// db is the demo's store.
func WriteDemoRealized(w io.Writer, rep fleet.RealizedReport, db string) error {
	for _, s := range rep.Steps {
		what := fmt.Sprintf("measuring (%s)", s.Note)
		if s.Status == fleet.RealizedMeasured {
			what = fmt.Sprintf("the bill shows %s a month saved (90%% interval %s – %s, %d days after it)", s.Realized.Dollars(), s.Low.Dollars(), s.High.Dollars(), s.Days)
		}
		if _, err := fmt.Fprintf(w, "\nApplied on %s: %s (%s). The plan predicted %s a month; %s.\n",
			s.At.Format(time.DateOnly), s.ID, s.Action, s.Predicted.Dollars(), what); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "      gpucost report savings --realized --db %s   # predicted beside realized, per applied step\n", db)
	return err
}
