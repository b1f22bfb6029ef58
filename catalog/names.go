package catalog

import (
	"strings"
)

// Normalize maps a GPU model name as any source writes it to the canonical GPUModel.Name:
// SkyPilot accelerator names ("A100", "A100-80GB", "H100-MEGA", "V100-32GB"), names reported by
// nvidia-smi, NVML and DCGM ("Tesla T4", "NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3"),
// MIG device names ("NVIDIA A100-SXM4-80GB MIG 1g.10gb": the parent model), and GKE accelerator
// labels ("nvidia-tesla-t4"). Case, spaces, dashes and underscores do not matter.
//
// Bare family names resolve as SkyPilot uses them: "A100" is the 40 GB part (AWS p4d, GCP a2-highgpu),
// "V100" the 16 GB part, and "H100" the SXM 80 GB part (AWS p5, GCP a3, Lambda and Nebius
// *_sxm*); readers that know an instance is a PCIe or NVL card say so (see refineModel).
// It returns false for a name it does not know.
func Normalize(name string) (canonical string, ok bool) {
	i, ok := specIndex[nameKey(name)]
	if !ok {
		return "", false
	}
	return specs[i].Name, true
}

// nameKey reduces a GPU name to the letters and digits that identify it: upper case, the MIG
// profile suffix and the vendor prefixes dropped.
func nameKey(name string) string {
	s := strings.ToUpper(strings.TrimSpace(name))
	if i := strings.Index(s, " MIG "); i >= 0 {
		s = s[:i]
	}
	var b strings.Builder
	for _, c := range s {
		if c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	s = b.String()
	for _, prefix := range []string{"NVIDIA", "TESLA", "QUADRO"} {
		if rest, ok := strings.CutPrefix(s, prefix); ok && rest != "" {
			s = rest
		}
	}
	return s
}

// refineModel picks the variant of a GPU family that an instance type names where the
// accelerator name alone is ambiguous: SkyPilot writes "H100" for Lambda's gpu_1x_h100_pcie.
func refineModel(model, instanceType string) string {
	it := strings.ToLower(instanceType)
	switch model {
	case "H100-SXM":
		switch {
		case strings.Contains(it, "pcie"):
			return "H100-PCIe"
		case strings.Contains(it, "nvl"):
			return "H100-NVL"
		}
	case "H200":
		if strings.Contains(it, "nvl") {
			return "H200-NVL"
		}
	}
	return model
}

// matchGPU returns the canonical models a user's --gpu value selects: the model it normalises
// to, and every model of the family it names ("h100" selects H100-SXM, H100-PCIe and H100-NVL;
// "a100" both A100s). It returns nil for a name that matches nothing.
func matchGPU(query string, known []string) []string {
	var out []string
	canon, ok := Normalize(query)
	family := nameKey(query)
	for _, name := range known {
		k := nameKey(name)
		switch {
		case ok && name == canon, name == query, k == family:
			out = append(out, name)
		case family != "" && strings.HasPrefix(strings.ToUpper(name), strings.ToUpper(strings.TrimSpace(query))+"-"):
			out = append(out, name)
		}
	}
	return out
}

// MatchGPU returns the canonical models of the catalog a user's --gpu value selects: the model it
// normalises to and every model of the family it names ("a100": A100-40GB and A100-80GB).
func (c *Catalog) MatchGPU(query string) []string { return matchGPU(query, c.Models()) }
