package main

import (
	"cmp"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

func newPlanCheckpointCmd(e *env) *cobra.Command {
	var (
		o                     plan.CheckpointOptions
		rate, size, bandwidth string
		pool                  spotPoolFlags
	)
	cmd := &cobra.Command{
		Use:   "checkpoint",
		Short: "How often a spot or failure-prone job should checkpoint, and what it costs",
		Long: `checkpoint gives Young's and Daly's checkpoint intervals (docs/architecture.md: Young τ = √(2δM); Daly
τ = √(2δM)·[1 + ⅓√(δ/2M) + (δ/2M)/9] − δ for δ < 2M, else M) and the exact optimum of Daly's
expected wall-time model, with the overhead each costs against failure-free time, and whether an
emergency checkpoint fits the provider's interruption notice (AWS 2 min, GCP and Azure 30 s).
δ is --checkpoint-time, or --size over --bandwidth; M is --mtbi or 1 / --interruption-rate.

--interruption-rate auto (the default when --instance-type names a spot pool and neither --mtbi
nor a rate is typed) takes the pool's rate from data: the rate measured from the job events
in --events where its runs were interrupted, else the Spot Instance Advisor's bucket kept by
catalog import --format aws-spot-advisor, and says which (docs/architecture.md "Spot risk").`,
		Example: `  gpucost plan checkpoint --checkpoint-time 45s --restart 5m --mtbi 6h
  gpucost plan checkpoint --size 98GB --bandwidth 1GB/s --restart 5m --interruption-rate 10%/h --provider aws
  gpucost plan checkpoint --checkpoint-time 5m --restart 10m --mtbi 24h --output json
  gpucost plan checkpoint --checkpoint-time 45s --restart 5m --instance-type g5.12xlarge --region us-east-1 --events s3://my-bucket/jobs`,
		Args: usageArgs(cobra.NoArgs),
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			if err := firstError(durNotNegative("checkpoint-time", o.CheckpointTime), durNotNegative("restart", o.Restart),
				durNotNegative("mtbi", o.MTBI), durNotNegative("notice", o.Notice), durNotNegative("work", o.Work)); err != nil {
				return result{}, err
			}
			if _, err := plan.SpotNotice(o.Provider); o.Provider != "" && err != nil {
				return result{}, gpucost.Errorf(gpucost.EInvalid, "--provider %q: use aws, gcp or azure, or leave it out and give --notice", o.Provider)
			}
			var err error
			if o.InterruptionsPerHour, o.RateSource, err = pool.parseRate(cmd.Context(), e, rate, o.MTBI != 0); err != nil {
				return result{}, err
			}
			if err := cmp.Or(parseOptional(&o.SizeBytes, "size", size, func(s string) (float64, error) { return plan.ParseBytes(s, false) }),
				parseOptional(&o.BandwidthBytesPerSecond, "bandwidth", bandwidth, func(s string) (float64, error) { return plan.ParseBytes(s, true) })); err != nil {
				return result{}, err
			}
			return shown(present.Checkpoint)(plan.Checkpoint(o))
		}),
	}
	f := cmd.Flags()
	f.DurationVar(&o.CheckpointTime, "checkpoint-time", 0, "δ: how long writing one checkpoint takes")
	f.DurationVar(&o.Restart, "restart", 0, "R: how long a restart takes, reading the checkpoint back included")
	f.DurationVar(&o.MTBI, "mtbi", 0, "M: mean time between interruptions")
	f.StringVar(&rate, "interruption-rate", "", "interruptions per hour instead of --mtbi: 10%/h, 0.1 or auto (the pool's measured rate, else its advisor bucket)")
	pool.register(cmd)
	f.StringVar(&size, "size", "", "checkpoint size, such as 98GB (with --bandwidth, instead of --checkpoint-time)")
	f.StringVar(&bandwidth, "bandwidth", "", "write bandwidth to checkpoint storage, such as 1GB/s")
	f.DurationVar(&o.Notice, "notice", 0, "interruption notice (default: the --provider's)")
	f.StringVar(&o.Provider, "provider", "", "aws, gcp or azure: the notice an emergency checkpoint must fit in")
	f.DurationVar(&o.Work, "work", 0, "failure-free run time, to estimate the wall time")
	return cmd
}
