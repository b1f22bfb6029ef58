package catalog

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// SkyPilot accelerator names.
		{"T4", "T4"}, {"T4g", "T4g"}, {"L4", "L4"}, {"L40S", "L40S"}, {"A10", "A10"}, {"A10G", "A10G"},
		{"V100", "V100-16GB"}, {"V100-32GB", "V100-32GB"}, {"P100", "P100"}, {"P4", "P4"},
		{"A100", "A100-40GB"}, {"A100-80GB", "A100-80GB"}, {"A100-80GB-SXM", "A100-80GB"},
		{"H100", "H100-SXM"}, {"H100-MEGA", "H100-SXM"}, {"H100-SXM", "H100-SXM"}, {"H100-NVL", "H100-NVL"},
		{"H200", "H200"}, {"H200-SXM", "H200"}, {"NVIDIA-H200-NVL", "H200-NVL"}, {"B200", "B200"},
		{"GH200", "GH200"}, {"A6000", "A6000"}, {"RTXA6000", "A6000"}, {"RTX6000", "RTX6000"}, {"L40", "L40"},
		// nvidia-smi, NVML and DCGM names.
		{"Tesla T4", "T4"}, {"NVIDIA L4", "L4"}, {"NVIDIA L40S", "L40S"}, {"NVIDIA A10G", "A10G"}, {"NVIDIA A10", "A10"},
		{"NVIDIA A100-SXM4-80GB", "A100-80GB"}, {"NVIDIA A100-SXM4-40GB", "A100-40GB"},
		{"NVIDIA A100-PCIE-40GB", "A100-40GB"}, {"NVIDIA A100 80GB PCIe", "A100-80GB"},
		{"NVIDIA H100 80GB HBM3", "H100-SXM"}, {"NVIDIA H100 PCIe", "H100-PCIe"}, {"NVIDIA H100 NVL", "H100-NVL"},
		{"NVIDIA H200", "H200"}, {"NVIDIA H200 NVL", "H200-NVL"}, {"NVIDIA B200", "B200"}, {"NVIDIA GH200 480GB", "GH200"},
		{"Tesla V100-SXM2-16GB", "V100-16GB"}, {"Tesla V100-SXM2-32GB", "V100-32GB"}, {"Tesla V100-PCIE-32GB", "V100-32GB"},
		{"Tesla P100-PCIE-16GB", "P100"}, {"Tesla P4", "P4"}, {"NVIDIA RTX A6000", "A6000"}, {"Quadro RTX 6000", "RTX6000"},
		// MIG devices name their parent.
		{"NVIDIA A100-SXM4-80GB MIG 1g.10gb", "A100-80GB"}, {"NVIDIA A100-SXM4-40GB MIG 3g.20gb", "A100-40GB"},
		{"NVIDIA H100 80GB HBM3 MIG 7g.80gb", "H100-SXM"},
		// GKE accelerator labels, case and spacing.
		{"nvidia-tesla-t4", "T4"}, {"nvidia-l4", "L4"}, {"nvidia-h100-mega-80gb", "H100-SXM"}, {"nvidia-a100-80gb", "A100-80GB"},
		{"nvidia-tesla-a100", "A100-40GB"}, {"nvidia-h200-141gb", "H200"},
		{"h100", "H100-SXM"}, {" a100_80gb ", "A100-80GB"}, {"h100-pcie", "H100-PCIe"},
	} {
		got, ok := Normalize(tc.in)
		if !ok || got != tc.want {
			t.Errorf("Normalize(%q) = %q, %v; want %q, true", tc.in, got, ok, tc.want)
		}
	}
	for _, in := range []string{"", "NVIDIA", "Tesla", "Inferentia", "Radeon Pro V520", "H1000", "RTX4090"} {
		if got, ok := Normalize(in); ok {
			t.Errorf("Normalize(%q) = %q, true; want false", in, got)
		}
	}
}

// TestAliasesAreUnambiguous checks that every alias leads back to its own model: two models
// claiming one name would silently shadow each other in specIndex.
func TestAliasesAreUnambiguous(t *testing.T) {
	for _, s := range specs {
		for _, name := range append([]string{s.Name}, s.Aliases...) {
			if got, _ := Normalize(name); got != s.Name {
				t.Errorf("Normalize(%q) = %q; the alias belongs to %s", name, got, s.Name)
			}
		}
	}
}

// TestNormalizeRealNames: every GPU name in the DCGM samples and in the bundled SkyPilot files
// (NVIDIA rows) must normalise.
func TestNormalizeRealNames(t *testing.T) {
	model := regexp.MustCompile(`modelName="([^"]*)"`)
	proms, _ := filepath.Glob("testdata/dcgm/*.prom")
	if len(proms) == 0 {
		t.Fatal("no DCGM samples in testdata/dcgm")
	}
	names := map[string]string{}
	for _, p := range proms {
		body, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range model.FindAllStringSubmatch(string(body), -1) {
			names[m[1]] = p
		}
	}
	for _, s := range bundled {
		body, err := readBundled(s.File)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		accel, info := slices.Index(recs[0], "AcceleratorName"), slices.Index(recs[0], "GpuInfo")
		for _, r := range recs[1:] {
			m := parseGPUInfo(r[info]).manufacturer
			if r[accel] != "" && (m == "NVIDIA" || s.Provider == "gcp") {
				names[r[accel]] = s.File
			}
		}
	}
	for _, want := range []string{"Tesla T4", "NVIDIA L4", "NVIDIA L40S", "H100-MEGA", "GH200", "T4g"} {
		if _, ok := names[want]; !ok {
			t.Errorf("the real files no longer name %q; the test reads them wrong", want)
		}
	}
	for name, file := range names {
		if _, ok := Normalize(name); !ok {
			t.Errorf("Normalize(%q) from %s: unknown", name, file)
		}
	}
}

func TestMatchGPU(t *testing.T) {
	known := append(specNames(), "RTX4090")
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"h100", []string{"H100-PCIe", "H100-SXM", "H100-NVL"}},
		{"A100", []string{"A100-40GB", "A100-80GB"}},
		{"v100", []string{"V100-16GB", "V100-32GB"}},
		{"H200", []string{"H200", "H200-NVL"}},
		{"L4", []string{"L4"}},
		{"T4", []string{"T4"}},
		{"NVIDIA A100-SXM4-80GB", []string{"A100-80GB"}},
		{"rtx4090", []string{"RTX4090"}},
		{"Z9000", nil},
	} {
		if got := matchGPU(tc.query, known); !slices.Equal(got, tc.want) {
			t.Errorf("matchGPU(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}

func specNames() []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

func TestRefineModel(t *testing.T) {
	for _, tc := range []struct{ model, instance, want string }{
		{"H100-SXM", "gpu_1x_h100_pcie", "H100-PCIe"},
		{"H100-SXM", "gpu_8x_h100_sxm5", "H100-SXM"},
		{"H100-SXM", "Standard_NC40ads_H100_NVL", "H100-NVL"},
		{"H100-SXM", "p5.48xlarge", "H100-SXM"},
		{"H200", "gpu_1x_h200_nvl", "H200-NVL"},
		{"A100-40GB", "gpu_1x_a100_pcie", "A100-40GB"},
	} {
		if got := refineModel(tc.model, tc.instance); got != tc.want {
			t.Errorf("refineModel(%q, %q) = %q, want %q", tc.model, tc.instance, got, tc.want)
		}
	}
}
