package nvmltest

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

// SharedCapture is the pynvml capture of two processes sharing one H200, beside the repository.
const SharedCapture = "../../../../shared/datasets/nvidia/h200-shared/pynvml.txt"

func TestParseCapture(t *testing.T) {
	c, err := ReadCapture(SharedCapture)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("the shared datasets are not beside the repository: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if c.Driver != "580.159.04" || c.Name != "NVIDIA H200" || c.MIG || len(c.Running) != 2 || c.Running[1] != (Running{435, 1050673152}) {
		t.Errorf("ReadCapture = %+v; want driver 580.159.04, NVIDIA H200, pids 434 and 435 with 1002 MiB each, MIG off", c)
	}
	var sm435 []uint32
	for _, p := range c.Polls {
		if p.GPUUtil != 100 || p.MemUtil != 23 || len(p.Procs) != 2 {
			t.Errorf("poll %+v: want device util 100/23 and two processes", p)
		}
		sm435 = append(sm435, p.Procs[0].SM)
	}
	if got := fmt.Sprint(sm435); got != "[8 8 9 10 13]" {
		t.Errorf("pid 435's SM samples = %s, want [8 8 9 10 13]", got)
	}
}

func TestParseCaptureRefuses(t *testing.T) {
	for name, text := range map[string]string{
		"empty":            "",
		"unknown line":     "driver 1 name X\nprocess util [(1, 2, 3, 4)]\ndevice util 1 2\nhello\n",
		"short tuple":      "driver 1 name X\nprocess util [(1, 2, 3)]\n",
		"orphan util":      "driver 1 name X\ndevice util 1 2\n",
		"not a number":     "driver 1 name X\nprocess util [(1, x, 3, 4)]\n",
		"no process polls": "driver 1 name X\nnvmlDeviceGetComputeRunningProcesses [(1, 2)]\n",
	} {
		if _, err := ParseCapture(strings.NewReader(text)); err == nil {
			t.Errorf("%s: ParseCapture(%q) = nil error, want one", name, text)
		}
	}
}
