package main

import (
	"cmp"

	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

func newPlanInstanceCmd(e *env) *cobra.Command {
	var (
		in             plan.InstanceInput
		params, tokens string
	)
	cmd := &cobra.Command{
		Use:   "instance",
		Short: "What a model needs in GPU memory, the instances that hold it, and what it costs",
		Long: `instance sizes a model's GPU memory — weights, gradients, optimizer state, activations, KV
cache and overhead, each with its formula — and lists the catalog's instances that hold it,
cheapest first, with on-demand and spot $/h. With --tokens it adds training time and total cost
from 6·params·tokens FLOPs (4 for LoRA) at --mfu of the GPUs' datasheet TFLOPS. For training it
also shows what the common "4 bytes × params" rule would have picked: mixed-precision Adam needs
about 16 bytes × params plus activations (reference case R3), so that rule under-sizes by 4×.`,
		Example: `  gpucost plan instance --params 7e9 --precision bf16 --mode training --tokens 2e9
  gpucost plan instance --params 70e9 --precision int4 --mode inference --batch 8 --seq 4096
  gpucost plan instance --params 13e9 --mode lora --provider aws --spot --output json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			if err := cmp.Or(intAtLeast("limit", in.Limit, 0), givenAtLeast(cmd, "batch", in.Batch, 1), givenAtLeast(cmd, "seq", in.Seq, 1), instanceMFU(cmd, in.MFU), parseFlag(&in.Params, "params", params, plan.ParseCount), parseOptional(&in.Tokens, "tokens", tokens, plan.ParseCount)); err != nil {
				return result{}, err
			}
			cat, err := e.loadCatalog(cmd.Context())
			if err == nil {
				err = knownProvider(cat, in.Provider)
			}
			if err != nil {
				return result{}, err
			}
			return shown(present.Instance)(plan.Instance(in, cat.Offers(), catalog.Spec))
		}),
	}
	f := cmd.Flags()
	f.StringVar(&params, "params", "", "model parameters, such as 7e9 or 70B")
	f.StringVar((*string)(&in.Precision), "precision", "bf16", "bf16, fp16, int8 or int4")
	f.StringVar((*string)(&in.Mode), "mode", "inference", "inference, training or lora")
	f.IntVar(&in.Batch, "batch", 0, "batch size (default 1)")
	f.IntVar(&in.Seq, "seq", 0, "sequence length (default 4096)")
	f.StringVar(&tokens, "tokens", "", "training tokens, such as 2e9, for time and cost")
	f.Float64Var(&in.MFU, "mfu", 0, "model-FLOPs utilisation for training time (default 0.40)")
	f.StringVar(&in.Provider, "provider", "", "only this provider's instances")
	f.BoolVar(&in.Spot, "spot", false, "rank by spot price")
	f.IntVar(&in.Limit, "limit", 10, "show at most this many options (0: all)")
	return cmd
}
