package main

import (
	"cmp"
	"math"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

// planFleetHelp is the command's --help text.
var planFleetHelp = `fleet spreads the GPUs asked for over the cheapest spot pools (instance type × zone) of one
region — up to --diversify of them, so one pool's reclaim takes only a share — with an
--on-demand-base share on the cheapest on-demand pool, and compares the blended $/h with running
the same instances on-demand. --export ec2-fleet prints an AWS EC2 CreateFleet request (capacity
counted in GPUs, price-capacity-optimized spot), --export karpenter a karpenter.sh/v1 NodePool
per capacity type.

--interruption-rate auto (the default) gives each spot pool its rate from data where there is
some: measured from the job events in --events and the bill's spot lines in the --db store,
else the Spot Instance Advisor's bucket kept by catalog import --format aws-spot-advisor
(docs/architecture.md "Spot risk"). The catalog names AWS zones by ID (use1-az4), runs and bills
by name (us-east-1a): the pairs the runner records, or --zones, match them; a pool whose zone
cannot be matched takes its region's measured rate and says "zone unmatched". Pools above
--max-risk are used only after the others, and the plan shows the interruptions per hour it
expects; --max-pool-share caps the share of the spot GPUs any one pool holds.`

func newPlanFleetCmd(e *env) *cobra.Command {
	var (
		o                      plan.FleetOptions
		gpu, base              string
		export                 string
		rate, maxRisk, poolCap string
		events, zones          string
	)
	cmd := &cobra.Command{
		Use:   "fleet --gpu A100 --count 8",
		Short: "A diversified spot GPU pool with an on-demand base, as an EC2 Fleet request or a Karpenter NodePool",
		Long:  planFleetHelp,
		Example: `  gpucost plan fleet --gpu A100 --count 8 --min-vram 40 --spot --diversify 6 --on-demand-base 20%
  gpucost plan fleet --gpu L4 --count 16 --diversify 8 --export karpenter > nodepool.yaml
  gpucost plan fleet --gpu H100 --count 64 --min-vram 80 --region us-east-1 --export ec2-fleet`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := firstError(e.validOutput(), intAtLeast("count", o.GPUs, 1), intAtLeast("diversify", o.Diversify, 0), floatIn("min-vram", o.MinVRAMGB, 0, math.Inf(1))); err != nil {
				return err
			}
			var err error
			if o.OnDemandBase, err = flagValue("on-demand-base", base, plan.ParseShare); err != nil {
				return err
			}
			if err := cmp.Or(parseOptional(&o.MaxRiskPerHour, "max-risk", maxRisk, plan.ParseRate),
				parseOptional(&o.MaxPoolShare, "max-pool-share", poolCap, plan.ParseShare)); err != nil {
				return err
			}
			if maxRisk == "" {
				o.MaxRiskPerHour = catalog.MonthlyToHourly(0.10)
			}
			cat, err := e.loadCatalog(cmd.Context())
			if err == nil {
				err = knownProvider(cat, o.Provider)
			}
			if err != nil {
				return err
			}
			if o.Models = cat.MatchGPU(gpu); len(o.Models) == 0 {
				return gpucost.Errorf(gpucost.EInvalid, "--gpu %q matches no GPU of the catalog; see gpucost catalog gpus", gpu)
			}
			if o.PoolRisk, err = fleetPoolRisk(cmd.Context(), e, cat.Offers(), &o, rate, events, zones); err != nil {
				return err
			}
			res, err := plan.Fleet(cat.Offers(), o)
			if err != nil {
				return err
			}
			return e.printFleet(res, export)
		},
	}
	f := cmd.Flags()
	f.StringVar(&gpu, "gpu", "", "GPU model or family: A100, H100, L4, …")
	f.IntVar(&o.GPUs, "count", 0, "GPUs wanted")
	f.Float64Var(&o.MinVRAMGB, "min-vram", 0, "least GPU memory, GB")
	f.IntVar(&o.Diversify, "diversify", plan.DefaultDiversify, "spot pools to spread over")
	f.StringVar(&base, "on-demand-base", "0", "share of the GPUs on on-demand capacity: 20% or 0.2")
	f.BoolVar(&o.Spot, "spot", true, "spread over spot pools; --spot=false plans the whole fleet on-demand")
	f.StringVar(&o.Provider, "provider", "aws", "the provider whose offers to use")
	f.StringSliceVar(&o.Regions, "region", nil, "only these regions")
	f.StringVar(&rate, "interruption-rate", rateAuto, "auto: each spot pool's rate from data (measured, else its advisor bucket), or none")
	f.StringVar(&events, "events", "", "for --interruption-rate auto: the store gpucost run wrote job events to")
	f.StringVar(&zones, "zones", "", "aws ec2 describe-availability-zones --output json: matches the catalog's zone IDs with the zone names runs and bills record, and names the EC2 Fleet's zones")
	f.StringVar(&maxRisk, "max-risk", "", "spot pools interrupted more often than this are used last (default: 10% of instances a month, 0.0144%/h: the advisor's 10-15% bucket and up)")
	f.StringVar(&poolCap, "max-pool-share", "", "most of the spot GPUs any one pool may hold, such as 40% (default: no cap)")
	f.StringVar(&export, "export", "", "print ec2-fleet (CreateFleet JSON) or karpenter (NodePool YAML) instead of the plan")
	return cmd
}

// printFleet prints the plan, or with export the EC2 Fleet request or Karpenter NodePool.
func (e *env) printFleet(r plan.FleetResult, export string) error {
	if export == "" {
		return e.print(present.FleetWithRisk(r))
	}
	out, err := plan.ExportFleet(r, export)
	if err != nil {
		return err
	}
	_, err = e.stdout.Write(out)
	return err
}
