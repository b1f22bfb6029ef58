// Package nvmltest replays NVML output captured on a real GPU through a mock NVML, so that tests
// of gpucost's collectors and profiler read the figures the driver gave. A capture is the text
// pynvml printed (shared datasets, nvidia/h200-shared/pynvml.txt): the driver and device name,
// nvmlDeviceGetComputeRunningProcesses, and polls of nvmlDeviceGetProcessUtilization each
// followed by the device's utilisation.
package nvmltest

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Capture is one GPU as NVML showed it over a few polls.
type Capture struct {
	Driver, Name string
	Running      []Running // nvmlDeviceGetComputeRunningProcesses
	Polls        []Poll
	MIG          bool // "mig mode [1, …]"
}

// Running is a compute process and the GPU memory NVML says it holds.
type Running struct {
	PID       uint32
	UsedBytes uint64
}

// Poll is one read of nvmlDeviceGetProcessUtilization and of the device's utilisation.
type Poll struct {
	Procs             []ProcUtil
	GPUUtil, MemUtil  uint32 // nvmlDeviceGetUtilizationRates, percent
	hasDevice, closed bool
}

// ProcUtil is one per-process utilisation sample: SM and memory percent, NVML's timestamp in µs.
type ProcUtil struct {
	PID         uint32
	SM, Mem     uint32
	TimeStampUS uint64
}

// ReadCapture reads a capture file.
func ReadCapture(path string) (Capture, error) {
	f, err := os.Open(path)
	if err != nil {
		return Capture{}, err
	}
	defer f.Close()
	c, err := ParseCapture(f)
	if err != nil {
		return Capture{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

var tuplePattern = regexp.MustCompile(`\(([^()]*)\)`)

// ParseCapture reads the text pynvml printed. Lines it does not know are errors, so a capture
// in another shape is noticed rather than half read.
func ParseCapture(r io.Reader) (Capture, error) {
	var c Capture
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		var err error
		switch {
		case line == "":
		case strings.HasPrefix(line, "driver "):
			c.Driver, c.Name, _ = strings.Cut(strings.TrimPrefix(line, "driver "), " name ")
		case strings.HasPrefix(line, "nvmlDeviceGetComputeRunningProcesses "):
			err = tuples(line, 2, func(v []uint64) { c.Running = append(c.Running, Running{PID: uint32(v[0]), UsedBytes: v[1]}) })
		case strings.HasPrefix(line, "nvmlDeviceGetGraphicsRunningProcesses "), strings.HasPrefix(line, "my pid "):
		case strings.HasPrefix(line, "process util "):
			var p Poll
			err = tuples(line, 4, func(v []uint64) {
				p.Procs = append(p.Procs, ProcUtil{PID: uint32(v[0]), SM: uint32(v[1]), Mem: uint32(v[2]), TimeStampUS: v[3]})
			})
			c.Polls = append(c.Polls, p)
		case strings.HasPrefix(line, "device util "):
			f := strings.Fields(strings.TrimPrefix(line, "device util "))
			if len(f) != 2 || len(c.Polls) == 0 || c.Polls[len(c.Polls)-1].hasDevice {
				return c, fmt.Errorf("line %d: %q: want \"device util GPU MEM\" after a process util line", n, line)
			}
			g, e1 := strconv.ParseUint(f[0], 10, 32)
			m, e2 := strconv.ParseUint(f[1], 10, 32)
			if e1 != nil || e2 != nil {
				return c, fmt.Errorf("line %d: %q: utilisation is not a number", n, line)
			}
			p := &c.Polls[len(c.Polls)-1]
			p.GPUUtil, p.MemUtil, p.hasDevice = uint32(g), uint32(m), true
		case strings.HasPrefix(line, "mig mode "):
			c.MIG = strings.HasPrefix(strings.TrimPrefix(line, "mig mode "), "[1")
		default:
			err = fmt.Errorf("unknown line")
		}
		if err != nil {
			return c, fmt.Errorf("line %d: %q: %w", n, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return c, err
	}
	if len(c.Polls) == 0 || c.Name == "" {
		return c, fmt.Errorf("no device name or no process util polls: not a pynvml capture")
	}
	return c, nil
}

// tuples calls add with the numbers of each "(a, b, …)" in line, which must have n of them.
func tuples(line string, n int, add func([]uint64)) error {
	for _, m := range tuplePattern.FindAllStringSubmatch(line, -1) {
		parts := strings.Split(m[1], ",")
		if len(parts) != n {
			return fmt.Errorf("(%s): want %d numbers", m[1], n)
		}
		v := make([]uint64, n)
		for i, p := range parts {
			x, err := strconv.ParseUint(strings.TrimSpace(p), 10, 64)
			if err != nil {
				return fmt.Errorf("(%s): %q is not a number", m[1], p)
			}
			v[i] = x
		}
		add(v)
	}
	return nil
}

// The H200 of the shared capture (nvidia/h200-shared), as its query-gpu.csv names it: the
// replay's identity and memory, which pynvml.txt does not print.
const (
	H200UUID     = "GPU-394b5914-a0f6-bd86-685c-15226d72588b"
	H200TotalMiB = 143771
)
