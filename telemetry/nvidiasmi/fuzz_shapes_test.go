package nvidiasmi

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// FuzzReadPmon checks that no pmon input panics and that every row and sample is in range.
func FuzzReadPmon(f *testing.F) {
	if data, err := os.ReadFile("testdata/h200-shared/pmon.txt"); err == nil {
		f.Add(string(data))
	}
	f.Add("#Date Time gpu pid type sm mem command\n20261102 10:00:00 0 1 C 5 1 a b\n")
	f.Add("#Time gpu pid type sm mem command\n23:59:59 0 1 C 5 1 a\n00:00:00 0 - - - - -\n")
	f.Fuzz(func(t *testing.T, text string) {
		pr := PmonReader{Start: time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)}
		rows, _, err := pr.Read(strings.NewReader(text), "fuzz.txt")
		if err != nil {
			return
		}
		for _, r := range rows {
			if r.Time.IsZero() || r.GPU < 0 || r.PID < 0 || r.SM > 100 || r.Mem > 100 {
				panic(fmt.Sprintf("bad row %+v", r))
			}
		}
		for _, s := range PmonSamples(rows, "h") {
			if s.Util > 100 || s.Util < 0 || s.GPU.UUID == "" {
				panic(fmt.Sprintf("bad sample %+v", s))
			}
		}
	})
}

// FuzzReadXML checks that no -q -x input panics and that every sample has a GPU and a time.
func FuzzReadXML(f *testing.F) {
	f.Add(migXML)
	f.Add("<nvidia_smi_log><timestamp>Mon Nov  2 10:00:00 2026</timestamp><gpu><uuid>GPU-1</uuid><utilization><gpu_util>5 %</gpu_util></utilization></gpu></nvidia_smi_log>")
	f.Fuzz(func(t *testing.T, text string) {
		logs, _, err := Reader{Host: "h"}.ReadXML(strings.NewReader(text), "fuzz.xml")
		if err != nil {
			return
		}
		for _, l := range logs {
			for _, s := range l.Samples {
				if s.Time.IsZero() || s.GPU.UUID == "" || s.Util > 100 || s.Util < 0 || s.MemUsedMiB < 0 || s.MemTotalMiB < 0 || s.PowerW < 0 {
					panic(fmt.Sprintf("bad sample %+v", s))
				}
			}
		}
	})
}
