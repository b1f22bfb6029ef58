package catalog

import (
	"slices"

	"github.com/gpucost/gpucost"
)

// Datasheets the specs below are taken from. Tensor figures are the dense ones: where a
// datasheet prints "X | 2X*" or only "2X*" (* with sparsity), X is used.
const (
	srcT4      = "NVIDIA T4 Tensor Core GPU datasheet, https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/t4-tensor-core-datasheet-951643.pdf"
	srcP4      = "NVIDIA Tesla P4 GPU accelerator datasheet, https://images.nvidia.com/content/pdf/tesla/184457-Tesla-P4-Datasheet-NV-Final-Letter-Web.pdf"
	srcP100    = "NVIDIA Tesla P100 PCIe datasheet, https://images.nvidia.com/content/tesla/pdf/nvidia-tesla-p100-PCIe-datasheet.pdf"
	srcV100    = "NVIDIA Tesla V100 GPU datasheet (SXM2 figures), https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf"
	srcRTX6000 = "NVIDIA Quadro RTX 6000 datasheet, https://www.nvidia.com/content/dam/en-zz/Solutions/design-visualization/quadro-product-literature/quadro-rtx-6000-us-nvidia-704093-r4-web.pdf"
	srcA10     = "NVIDIA A10 Tensor Core GPU datasheet, https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a10/pdf/a10-datasheet.pdf"
	srcA10G    = "no NVIDIA datasheet exists for the AWS-only A10G; figures as compiled in Baseten, \"NVIDIA A10 vs A10G for ML model inference\", https://www.baseten.co/blog/nvidia-a10-vs-a10g-for-ml-model-inference/ (memory and bandwidth as the A10 datasheet)"
	srcA6000   = "NVIDIA RTX A6000 datasheet, https://www.nvidia.com/en-us/design-visualization/rtx-a6000/"
	srcL4      = "NVIDIA L4 Tensor Core GPU datasheet, https://resources.nvidia.com/en-us-data-center-overview/l4-gpu-datasheet"
	srcL40     = "NVIDIA L40 GPU datasheet, https://www.nvidia.com/en-us/data-center/l40/"
	srcL40S    = "NVIDIA L40S GPU datasheet, https://resources.nvidia.com/en-us-l40s/l40s-datasheet-28413"
	srcA100    = "NVIDIA A100 Tensor Core GPU datasheet (SXM4 figures), https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"
	srcH100    = "NVIDIA H100 Tensor Core GPU datasheet, https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet"
	srcGH200   = "NVIDIA GH200 Grace Hopper Superchip datasheet (GPU part; TDP is the whole module's), https://resources.nvidia.com/en-us-grace-cpu/grace-hopper-superchip"
	srcH200    = "NVIDIA H200 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/h200/"
	srcB200    = "NVIDIA HGX platform technical specifications (HGX B200, per GPU), https://www.nvidia.com/en-us/data-center/hgx/"

	// MIG profile names: NVIDIA Multi-Instance GPU User Guide, "Supported MIG Profiles",
	// https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html
	// (media-extension "+me" variants left out). docs/architecture.md lists the same names.
	srcMIG = "; MIG profiles: NVIDIA Multi-Instance GPU User Guide, https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html"
)

// specs is the datasheet table, in display order: older and smaller GPUs first. Aliases are the
// names sources use (SkyPilot, nvidia-smi/NVML/DCGM, GKE accelerator labels); Normalize matches
// them ignoring case, spaces, dashes and the "NVIDIA"/"Tesla"/"Quadro" prefixes.
var specs = []gpucost.GPUModel{
	{Name: "T4", Aliases: []string{"Tesla T4", "NVIDIA T4", "nvidia-tesla-t4"},
		Vendor: "NVIDIA", MemoryGB: 16, BF16TFLOPS: 0, FP16TFLOPS: 65, FP32TFLOPS: 8.1,
		MemoryBWGBs: 320, TDPW: 70, Source: srcT4},
	{Name: "T4g", Aliases: []string{"NVIDIA T4G"}, // the T4 on AWS Graviton (g5g) hosts
		Vendor: "NVIDIA", MemoryGB: 16, BF16TFLOPS: 0, FP16TFLOPS: 65, FP32TFLOPS: 8.1,
		MemoryBWGBs: 320, TDPW: 70, Source: srcT4 + " (T4G is the T4 on Arm hosts)"},
	{Name: "P4", Aliases: []string{"Tesla P4", "nvidia-tesla-p4"}, // no tensor cores
		Vendor: "NVIDIA", MemoryGB: 8, FP32TFLOPS: 5.5, MemoryBWGBs: 192, TDPW: 75, Source: srcP4},
	{Name: "P100", Aliases: []string{"Tesla P100-PCIE-16GB", "nvidia-tesla-p100"}, // no tensor cores
		Vendor: "NVIDIA", MemoryGB: 16, FP32TFLOPS: 9.3, MemoryBWGBs: 732, TDPW: 250, Source: srcP100},
	{Name: "V100-16GB", Aliases: []string{"V100", "Tesla V100-SXM2-16GB", "Tesla V100-PCIE-16GB", "nvidia-tesla-v100"},
		Vendor: "NVIDIA", MemoryGB: 16, BF16TFLOPS: 0, FP16TFLOPS: 125, FP32TFLOPS: 15.7,
		MemoryBWGBs: 900, TDPW: 300, Source: srcV100},
	{Name: "V100-32GB", Aliases: []string{"Tesla V100-SXM2-32GB", "Tesla V100-PCIE-32GB"},
		Vendor: "NVIDIA", MemoryGB: 32, BF16TFLOPS: 0, FP16TFLOPS: 125, FP32TFLOPS: 15.7,
		MemoryBWGBs: 900, TDPW: 300, Source: srcV100},
	{Name: "RTX6000", Aliases: []string{"Quadro RTX 6000"},
		Vendor: "NVIDIA", MemoryGB: 24, BF16TFLOPS: 0, FP16TFLOPS: 130.5, FP32TFLOPS: 16.3,
		MemoryBWGBs: 672, TDPW: 295, Source: srcRTX6000},
	{Name: "A10", Aliases: []string{"NVIDIA A10"},
		Vendor: "NVIDIA", MemoryGB: 24, BF16TFLOPS: 125, FP16TFLOPS: 125, FP32TFLOPS: 31.2,
		MemoryBWGBs: 600, TDPW: 150, Source: srcA10},
	{Name: "A10G", Aliases: []string{"NVIDIA A10G"},
		Vendor: "NVIDIA", MemoryGB: 24, BF16TFLOPS: 70, FP16TFLOPS: 70, FP32TFLOPS: 35,
		MemoryBWGBs: 600, TDPW: 300, Source: srcA10G},
	{Name: "A6000", Aliases: []string{"RTXA6000", "NVIDIA RTX A6000"},
		Vendor: "NVIDIA", MemoryGB: 48, BF16TFLOPS: 154.8, FP16TFLOPS: 154.8, FP32TFLOPS: 38.7,
		MemoryBWGBs: 768, TDPW: 300, Source: srcA6000},
	{Name: "L4", Aliases: []string{"NVIDIA L4", "nvidia-l4"},
		Vendor: "NVIDIA", MemoryGB: 24, BF16TFLOPS: 121, FP16TFLOPS: 121, FP32TFLOPS: 30.3,
		MemoryBWGBs: 300, TDPW: 72, Source: srcL4},
	{Name: "L40", Aliases: []string{"NVIDIA L40"},
		Vendor: "NVIDIA", MemoryGB: 48, BF16TFLOPS: 181.05, FP16TFLOPS: 181.05, FP32TFLOPS: 90.5,
		MemoryBWGBs: 864, TDPW: 300, Source: srcL40},
	{Name: "L40S", Aliases: []string{"NVIDIA L40S"},
		Vendor: "NVIDIA", MemoryGB: 48, BF16TFLOPS: 362.05, FP16TFLOPS: 362.05, FP32TFLOPS: 91.6,
		MemoryBWGBs: 864, TDPW: 350, Source: srcL40S},
	{Name: "A100-40GB", Aliases: []string{"A100", "NVIDIA A100-SXM4-40GB", "NVIDIA A100-PCIE-40GB", "nvidia-tesla-a100"},
		Vendor: "NVIDIA", MemoryGB: 40, BF16TFLOPS: 312, FP16TFLOPS: 312, FP32TFLOPS: 19.5,
		MemoryBWGBs: 1555, TDPW: 400, Source: srcA100 + srcMIG,
		MIG: []string{"1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"}},
	{Name: "A100-80GB", Aliases: []string{"A100-80GB-SXM", "NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe", "NVIDIA A100-PCIE-80GB", "nvidia-a100-80gb"},
		Vendor: "NVIDIA", MemoryGB: 80, BF16TFLOPS: 312, FP16TFLOPS: 312, FP32TFLOPS: 19.5,
		MemoryBWGBs: 2039, TDPW: 400, Source: srcA100 + srcMIG,
		MIG: []string{"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"}},
	{Name: "H100-PCIe", Aliases: []string{"NVIDIA H100 PCIe"},
		Vendor: "NVIDIA", MemoryGB: 80, BF16TFLOPS: 756.5, FP16TFLOPS: 756.5, FP32TFLOPS: 51,
		MemoryBWGBs: 2000, TDPW: 350, Source: srcH100 + srcMIG,
		MIG: []string{"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"}},
	{Name: "H100-SXM", Aliases: []string{"H100", "H100-SXM5", "H100-80GB", "H100-MEGA", "H100-NVLINK",
		"NVIDIA H100 80GB HBM3", "NVIDIA H100", "nvidia-h100-80gb", "nvidia-h100-mega-80gb"},
		Vendor: "NVIDIA", MemoryGB: 80, BF16TFLOPS: 989.5, FP16TFLOPS: 989.5, FP32TFLOPS: 67,
		MemoryBWGBs: 3350, TDPW: 700, Source: srcH100 + srcMIG,
		MIG: []string{"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"}},
	{Name: "H100-NVL", Aliases: []string{"NVIDIA H100 NVL"},
		Vendor: "NVIDIA", MemoryGB: 94, BF16TFLOPS: 835.5, FP16TFLOPS: 835.5, FP32TFLOPS: 60,
		MemoryBWGBs: 3900, TDPW: 400, Source: srcH100 + srcMIG,
		MIG: []string{"1g.12gb", "1g.24gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb"}},
	{Name: "GH200", Aliases: []string{"NVIDIA GH200 480GB"},
		Vendor: "NVIDIA", MemoryGB: 96, BF16TFLOPS: 989.5, FP16TFLOPS: 989.5, FP32TFLOPS: 67,
		MemoryBWGBs: 4000, TDPW: 1000, Source: srcGH200 + srcMIG,
		MIG: []string{"1g.12gb", "1g.24gb", "2g.24gb", "3g.48gb", "4g.48gb", "7g.96gb"}},
	{Name: "H200", Aliases: []string{"H200-SXM", "H200-141GB", "NVIDIA H200", "nvidia-h200-141gb"},
		Vendor: "NVIDIA", MemoryGB: 141, BF16TFLOPS: 989.5, FP16TFLOPS: 989.5, FP32TFLOPS: 67,
		MemoryBWGBs: 4800, TDPW: 700, Source: srcH200 + srcMIG,
		MIG: []string{"1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"}},
	{Name: "H200-NVL", Aliases: []string{"NVIDIA H200 NVL", "NVIDIA-H200-NVL"},
		Vendor: "NVIDIA", MemoryGB: 141, BF16TFLOPS: 835.5, FP16TFLOPS: 835.5, FP32TFLOPS: 60,
		MemoryBWGBs: 4800, TDPW: 600, Source: srcH200 + srcMIG,
		MIG: []string{"1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"}},
	{Name: "B200", Aliases: []string{"NVIDIA B200", "nvidia-b200"},
		Vendor: "NVIDIA", MemoryGB: 180, BF16TFLOPS: 2250, FP16TFLOPS: 2250, FP32TFLOPS: 75,
		MemoryBWGBs: 7700, TDPW: 1000, Source: srcB200 + srcMIG,
		MIG: []string{"1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"}},
}

// specIndex maps a name key (see nameKey) to the index of its model in specs; specByName maps
// the canonical names, the common case, without building a key.
var (
	specIndex  = buildSpecIndex()
	specByName = buildSpecByName()
)

func buildSpecByName() map[string]int {
	m := make(map[string]int, len(specs))
	for i, s := range specs {
		m[s.Name] = i
	}
	return m
}

func buildSpecIndex() map[string]int {
	m := make(map[string]int)
	for i, s := range specs {
		m[nameKey(s.Name)] = i
		for _, a := range s.Aliases {
			m[nameKey(a)] = i
		}
	}
	return m
}

// Specs returns the datasheet of every GPU model the catalog knows, older and smaller first.
func Specs() []gpucost.GPUModel {
	out := make([]gpucost.GPUModel, len(specs))
	for i, s := range specs {
		out[i] = cloneModel(s)
	}
	return out
}

// Spec returns the datasheet of the GPU model that name denotes, under any of its aliases.
func Spec(name string) (gpucost.GPUModel, bool) {
	i, ok := specIndex[nameKey(name)]
	if !ok {
		return gpucost.GPUModel{}, false
	}
	return cloneModel(specs[i]), true
}

// lookupSpec is Spec without the copy, for reading inside the package.
func lookupSpec(name string) (*gpucost.GPUModel, bool) {
	if i, ok := specByName[name]; ok {
		return &specs[i], true
	}
	i, ok := specIndex[nameKey(name)]
	if !ok {
		return nil, false
	}
	return &specs[i], true
}

// specOrder returns a model's position in the display order; unknown models sort last.
func specOrder(name string) int {
	if i, ok := specByName[name]; ok {
		return i
	}
	return len(specs)
}

func cloneModel(m gpucost.GPUModel) gpucost.GPUModel {
	m.Aliases = slices.Clone(m.Aliases)
	m.MIG = slices.Clone(m.MIG)
	return m
}

// MIGProfiles returns the MIG profile names, smallest first, of the GPU model name denotes
// under any of its spellings; none if the catalog knows no such model or it has no MIG.
func MIGProfiles(name string) []string {
	canon, ok := Normalize(name)
	if !ok {
		return nil
	}
	spec, ok := Spec(canon)
	if !ok {
		return nil
	}
	return spec.MIG
}
