package nvidiasmi

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/dcgmfields"
)

// XMLTimeLayout is how nvidia-smi -q -x writes its <timestamp>, in the host's local time.
const XMLTimeLayout = "Mon Jan _2 15:04:05 2006"

// Process is a process using a GPU, as nvidia-smi lists it (-q -x's <process_info>,
// --query-compute-apps): what per-process attribution starts from.
type Process struct {
	Time time.Time // when nvidia-smi listed it; zero if the listing has no time
	// GPU is the UUID of the GPU the process runs on: the MIG instance's where -q -x places it
	// on one, else the physical GPU's (--query-compute-apps names the physical GPU).
	GPU     string
	PID     int
	Type    string  // "C" compute, "G" graphics, "C+G" both; "" if not listed
	Name    string  // the process name, such as "python3"
	UsedMiB float64 // framebuffer memory it holds; Absent if not reported
}

// XMLLog is what one nvidia-smi -q -x report holds that gpucost uses.
type XMLLog struct {
	Time      time.Time
	Driver    string
	Samples   []gpucost.Sample // one per GPU, then one per MIG instance of it, as listed
	Processes []Process        // every GPU's, in order
}

// xmlLog mirrors the parts of nvidia-smi -q -x output (nvsmi_device_v*.dtd) gpucost reads.
type xmlLog struct {
	XMLName   xml.Name `xml:"nvidia_smi_log"`
	Timestamp string   `xml:"timestamp"`
	Driver    string   `xml:"driver_version"`
	GPUs      []xmlGPU `xml:"gpu"`
}

type xmlGPU struct {
	Product    string       `xml:"product_name"`
	UUID       string       `xml:"uuid"`
	MIGMode    string       `xml:"mig_mode>current_mig"`
	MIGDevices []xmlMIG     `xml:"mig_devices>mig_device"`
	FB         xmlMemory    `xml:"fb_memory_usage"`
	Util       string       `xml:"utilization>gpu_util"`
	Power      xmlPower     `xml:"gpu_power_readings"`
	OldPower   xmlPower     `xml:"power_readings"` // drivers before 530
	Temp       string       `xml:"temperature>gpu_temp"`
	Processes  []xmlProcess `xml:"processes>process_info"`
}

type xmlMIG struct {
	UUID string    `xml:"uuid"` // not every driver writes it
	GI   string    `xml:"gpu_instance_id"`
	CI   string    `xml:"compute_instance_id"`
	FB   xmlMemory `xml:"fb_memory_usage"`
}

type xmlMemory struct {
	Total string `xml:"total"`
	Used  string `xml:"used"`
}

// xmlPower holds the board's power draw: power_draw before driver 530, average_power_draw
// (what --query-gpu's power.draw reports on Ampere and newer) and instant_power_draw after.
type xmlPower struct {
	Draw    string `xml:"power_draw"`
	Average string `xml:"average_power_draw"`
	Instant string `xml:"instant_power_draw"`
}

type xmlProcess struct {
	GI   string `xml:"gpu_instance_id"`
	CI   string `xml:"compute_instance_id"`
	PID  string `xml:"pid"`
	Type string `xml:"type"`
	Name string `xml:"process_name"`
	Used string `xml:"used_memory"`
}

// ReadXML parses nvidia-smi -q -x output: one report, or the reports nvidia-smi -q -x -l N
// writes one after another. Each report gives a sample per GPU and per MIG instance at its
// timestamp (read in rd.Location, UTC if nil), and the processes on each. A MIG instance takes
// the UUID the report gives it, else its GPU instance's (see dcgmfields.MIGUUID), and reports
// memory only; the report names no MIG profile. A reading a report lacks is Absent; one it
// cannot give is skipped and counted, and so is a last report cut short (nvidia-smi -l
// stopped while writing it). ReadXML fails on anything else that is not such a report.
func (rd Reader) ReadXML(r io.Reader, name string) ([]XMLLog, Stats, error) {
	var st Stats
	var logs []XMLLog
	dec := xml.NewDecoder(r)
	for n := 1; ; n++ {
		var doc xmlLog
		err := dec.Decode(&doc)
		var syntax *xml.SyntaxError
		switch {
		case errors.Is(err, io.EOF) && n > 1:
			return logs, st, nil
		case errors.As(err, &syntax) && syntax.Msg == "unexpected EOF" && n > 1:
			st.skip(name, syntax.Line, "", fmt.Sprintf("report %d is cut short (was nvidia-smi -l stopped while writing it?); left out", n))
			return logs, st, nil
		case err != nil:
			return nil, st, gpucost.Errorf(gpucost.EInvalid, "%s is not nvidia-smi -q -x output: report %d: %v; record it with nvidia-smi -q -x > FILE", name, n, err)
		}
		log, err := rd.report(doc, name, n, &st)
		if err != nil {
			return nil, st, err
		}
		logs = append(logs, log)
	}
}

// report reads the n-th report of a file.
func (rd Reader) report(doc xmlLog, name string, n int, st *Stats) (XMLLog, error) {
	loc := rd.Location
	if loc == nil {
		loc = time.UTC
	}
	t, err := time.ParseInLocation(XMLTimeLayout, strings.TrimSpace(doc.Timestamp), loc)
	if err != nil || t.Before(minTime) || !t.Before(maxTime) {
		return XMLLog{}, gpucost.Errorf(gpucost.EInvalid, "%s: report %d: <timestamp> %q is not a time like %q; was the report cut or edited?", name, n, doc.Timestamp, XMLTimeLayout)
	}
	log := XMLLog{Time: t.UTC(), Driver: strings.TrimSpace(doc.Driver)}
	for i, g := range doc.GPUs {
		st.Lines++
		uuid := strings.TrimSpace(g.UUID)
		if uuid == "" {
			st.skip(name, 0, "uuid", fmt.Sprintf("GPU %d has no <uuid>; left out", i))
			continue
		}
		gpu := gpucost.GPU{UUID: uuid, Host: rd.Host, Model: strings.TrimSpace(g.Product), Index: i}
		s := gpucost.NewSample(log.Time, gpu)
		rd.put(&s, colUtil, g.Util, name, st)
		rd.put(&s, colMemUsed, g.FB.Used, name, st)
		rd.put(&s, colMemTotal, g.FB.Total, name, st)
		rd.put(&s, colPower, g.power(), name, st)
		rd.put(&s, colTemp, g.Temp, name, st)
		log.Samples = append(log.Samples, s)
		migs := map[string]string{} // "gi/ci" → the instance's UUID
		for _, m := range g.MIGDevices {
			gi, ci := strings.TrimSpace(m.GI), strings.TrimSpace(m.CI)
			mu := strings.TrimSpace(m.UUID)
			if mu == "" || missing(mu) {
				mu = dcgmfields.MIGUUID(uuid, gi)
			}
			migs[gi+"/"+ci] = mu
			ms := gpucost.NewSample(log.Time, gpucost.GPU{UUID: mu, Host: rd.Host, Model: gpu.Model, Index: i, Parent: uuid})
			rd.put(&ms, colMemUsed, m.FB.Used, name, st)
			rd.put(&ms, colMemTotal, m.FB.Total, name, st)
			log.Samples = append(log.Samples, ms)
		}
		for _, p := range g.Processes {
			pr, why := p.process(log.Time, uuid, migs)
			if why != "" {
				st.skip(name, 0, "process_info", fmt.Sprintf("GPU %s: %s; left out", uuid, why))
				continue
			}
			log.Processes = append(log.Processes, pr)
		}
	}
	st.Samples += len(log.Samples)
	if len(log.Samples) == 0 {
		return log, gpucost.Errorf(gpucost.EInvalid, "%s: report %d holds no GPU (no <gpu> with a <uuid>): was nvidia-smi -q -x run where it found GPUs?", name, n)
	}
	return log, nil
}

// power is the board's power draw the report gives, as --query-gpu's power.draw would.
func (g xmlGPU) power() string {
	for _, v := range []string{g.Power.Draw, g.Power.Average, g.Power.Instant, g.OldPower.Draw} {
		if v = strings.TrimSpace(v); v != "" && !missing(v) {
			return v
		}
	}
	return ""
}

// put reads the field f as the reading of column c into s, or skips it with the reason.
func (rd Reader) put(s *gpucost.Sample, c column, f, name string, st *Stats) {
	v, why := reading(strings.TrimSpace(f))
	if why == "" && !gpucost.IsAbsent(v) {
		why = putReading(s, c, v)
	}
	if why != "" {
		st.skip(name, 0, fieldName(c), s.GPU.UUID+": "+why+"; reading left out")
	}
}

// process turns a <process_info> into a Process on the GPU uuid, or its MIG instance in migs.
func (p xmlProcess) process(at time.Time, uuid string, migs map[string]string) (Process, string) {
	pid, err := strconv.Atoi(strings.TrimSpace(p.PID))
	if err != nil || pid <= 0 {
		return Process{}, fmt.Sprintf("pid %q is not a process id", p.PID)
	}
	pr := Process{Time: at, GPU: uuid, PID: pid, Type: strings.TrimSpace(p.Type), Name: strings.TrimSpace(p.Name), UsedMiB: gpucost.Absent}
	if mu, ok := migs[strings.TrimSpace(p.GI)+"/"+strings.TrimSpace(p.CI)]; ok {
		pr.GPU = mu
	}
	v, why := reading(strings.TrimSpace(p.Used))
	if why != "" {
		return Process{}, "used_memory " + why
	}
	pr.UsedMiB = v
	return pr, ""
}
