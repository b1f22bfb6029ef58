package catalog

import (
	"testing"

	"github.com/gpucost/gpucost"
)

func TestLineGPU(t *testing.T) {
	c, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		line  gpucost.CostLine
		model string
		gpus  float64
	}{
		{gpucost.CostLine{InstanceType: "p4d.24xlarge"}, "A100-40GB", 8},
		{gpucost.CostLine{InstanceType: "p5.48xlarge"}, "H100-SXM", 8},
		{gpucost.CostLine{InstanceType: "g5.xlarge"}, "A10G", 1},
		{gpucost.CostLine{InstanceType: "ml.g5.12xlarge"}, "A10G", 4},
		{gpucost.CostLine{InstanceType: "a2-highgpu-1g"}, "A100-40GB", 1},
		{gpucost.CostLine{InstanceType: "Standard_NC24ads_A100_v4"}, "A100-80GB", 1},
		{gpucost.CostLine{InstanceType: "Standard_ND96isr_H100_v5"}, "H100-SXM", 8},
		{gpucost.CostLine{ChargeDescription: "$32.7726 per On Demand Linux p4d.24xlarge Instance Hour"}, "A100-40GB", 8},
		{gpucost.CostLine{ChargeDescription: "Nvidia Tesla A100 GPU running in Americas"}, "A100-40GB", 0},
		{gpucost.CostLine{ChargeDescription: "Spot Preemptible Nvidia Tesla T4 GPU running in EMEA"}, "T4", 0},
		{gpucost.CostLine{ChargeDescription: "Nvidia L4 GPU running in Americas"}, "L4", 0},
		{gpucost.CostLine{ChargeDescription: "Commitment v1: Nvidia H100 80GB Plus GPU in Americas for 1 Year"}, "H100-SXM", 0},
		{gpucost.CostLine{ChargeDescription: "Nvidia Tesla A100 80GB GPU running in Americas"}, "A100-80GB", 0},
	} {
		g, ok := c.LineGPU(&tc.line)
		if !ok || g.Model != tc.model || g.GPUs != tc.gpus || g.By == "" {
			t.Errorf("%+v: got %+v %v, want %s × %v", tc.line, g, ok, tc.model, tc.gpus)
		}
	}
	for _, l := range []gpucost.CostLine{
		{InstanceType: "m5.xlarge"}, {InstanceType: "Standard_D4s_v5"},
		{ChargeDescription: "$0.08 per GB-month of General Purpose SSD (gp3) provisioned storage"},
		{ChargeDescription: "N1 Predefined Instance Core running in Americas"},
	} {
		if g, ok := c.LineGPU(&l); ok {
			t.Errorf("%+v: recognised as %+v", l, g)
		}
	}
}
