package dcgmfields

import (
	"maps"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func TestOf(t *testing.T) {
	for name, want := range map[string]Field{
		"DCGM_FI_DEV_GPU_UTIL": Util, "dcgm_gpu_utilization": Util, "DCGM_FI_DEV_FB_RESERVED": FBReserved,
		"DCGM_FI_PROF_SM_OCCUPANCY": SMOccupancy, "DCGM_FI_DEV_SM_CLOCK": Ignored, "DCGM_EXP_XID_ERRORS_COUNT": Ignored,
		"node_load1": Unknown, "DCGM_FI_DEV_GPU_UTILL": Unknown,
	} {
		if got := Of(name); got != want || got.Read() != (want >= Util) {
			t.Errorf("Of(%s) = %v, want %v", name, got, want)
		}
	}
	if got := strings.Join(Metrics(), ","); got != "DCGM_FI_DEV_FB_FREE,DCGM_FI_DEV_FB_RESERVED,DCGM_FI_DEV_FB_TOTAL,DCGM_FI_DEV_FB_USED,"+
		"DCGM_FI_DEV_GPU_TEMP,DCGM_FI_DEV_GPU_UTIL,DCGM_FI_DEV_POWER_USAGE,DCGM_FI_PROF_GR_ENGINE_ACTIVE,DCGM_FI_PROF_SM_ACTIVE,DCGM_FI_PROF_SM_OCCUPANCY" {
		t.Errorf("Metrics() = %s", got)
	}
}

func TestInvalid(t *testing.T) {
	for _, c := range []struct {
		f    Field
		v    float64
		want string
	}{
		{Util, 100, ""}, {Util, 100.5, "value 100.5 is above 100"}, {SMActive, 1.2, "value 1.2 is above 1"},
		{Power, 700, ""}, {Temp, -1, "negative value -1"}, {FBUsed, math.NaN(), "value is NaN"}, {FBFree, math.Inf(1), "value is infinite"},
	} {
		if got := c.f.Invalid(c.v); got != c.want {
			t.Errorf("Field(%d).Invalid(%v) = %q, want %q", c.f, c.v, got, c.want)
		}
	}
}

func TestIdentify(t *testing.T) {
	for _, c := range []struct {
		name   string
		labels map[string]string
		gpu    gpucost.GPU
		attr   string
		why    string
	}{
		{"dcgm-exporter on Kubernetes, scraped by a ServiceMonitor",
			map[string]string{"gpu": "3", "UUID": "GPU-x", "modelName": "NVIDIA H100 80GB HBM3", "Hostname": "node-1",
				"pod": "dcgm-exporter-abc", "namespace": "gpu-operator", "container": "exporter", "exported_pod": "train-0",
				"exported_namespace": "ml", "exported_container": "main", "job": "dcgm", "instance": "10.0.0.1:9400", "service": "dcgm",
				"DCGM_FI_DRIVER_VERSION": "550", "Cluster": "prod"},
			gpucost.GPU{UUID: "GPU-x", Host: "node-1", Model: "NVIDIA H100 80GB HBM3", Index: 3},
			"cluster=prod,container=main,namespace=ml,pod=train-0", ""},
		{"MIG with an HPC job", map[string]string{"gpu": "0", "UUID": "GPU-p", "GPU_I_ID": "2", "GPU_I_PROFILE": "1g.10gb", "hpc_job": "77"},
			gpucost.GPU{UUID: "GPU-p/2", Host: "fallback", Index: 0, Parent: "GPU-p", Profile: "1g.10gb"}, "job=77", ""},
		{"no UUID", map[string]string{"gpu": "5", "pod": ""}, gpucost.GPU{UUID: "gpu5", Host: "fallback", Index: 5}, "", ""},
		{"no GPU", map[string]string{"Hostname": "h"}, gpucost.GPU{}, "", "labels name no GPU (no UUID or gpu label)"},
		{"bad index", map[string]string{"gpu": "-1"}, gpucost.GPU{}, "", `gpu label "-1" is not a device index`},
	} {
		g, attr, why := Identify(maps.All(c.labels), "fallback")
		if why != c.why || (why == "" && (g != c.gpu || attr.String() != c.attr)) {
			t.Errorf("%s: Identify = %+v %q %q, want %+v %q %q", c.name, g, attr.String(), why, c.gpu, c.attr, c.why)
		}
	}
}

func TestBuilder(t *testing.T) {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	b := NewBuilder(at, gpucost.GPU{UUID: "GPU-a"}, nil)
	b.Set(FBUsed, 100)
	b.Set(FBFree, 800)
	if s := b.Sample(); s.MemTotalMiB != 900 || !gpucost.IsAbsent(s.Util) {
		t.Errorf("used + free = %v", s.MemTotalMiB)
	}
	b.Set(FBReserved, 50)
	if s := b.Sample(); s.MemTotalMiB != 950 {
		t.Errorf("used + free + reserved = %v", s.MemTotalMiB)
	}
	b.Set(FBTotal, 1024)
	if s := b.Sample(); s.MemTotalMiB != 1024 {
		t.Errorf("FB_TOTAL = %v, want it to win", s.MemTotalMiB)
	}
	if b.Set(FBUsed, 5) || b.Sample().MemUsedMiB != 100 {
		t.Errorf("a second FB_USED replaced the first")
	}
	only := NewBuilder(at, gpucost.GPU{}, nil)
	only.Set(FBFree, 10)
	if s := only.Sample(); !gpucost.IsAbsent(s.MemTotalMiB) {
		t.Errorf("free alone gave a total of %v", s.MemTotalMiB)
	}
}

func FuzzIdentify(f *testing.F) {
	f.Add("gpu", "0", "UUID", "GPU-a", "GPU_I_ID", "1")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2, k3, v3 string) {
		labels := map[string]string{k1: v1, k2: v2, k3: v3}
		g, attr, why := Identify(maps.All(labels), "h")
		if why == "" && (g.UUID == "" || g.Index < -1) {
			t.Fatalf("Identify(%v) = %+v with no reason", labels, g)
		}
		for k := range attr {
			if k != strings.ToLower(k) {
				t.Fatalf("label %q is not lower-case", k)
			}
		}
	})
}
