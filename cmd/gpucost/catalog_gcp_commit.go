package main

import (
	"cmp"
	"context"
	"fmt"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/plan"
)

// applyGCPCUD sets in.Discount from the catalog's GCP committed-use price of spec, a machine
// type and region ("a3-highgpu-8g/us-central1"), for in.Term (catalog.Commitment). It says on
// stderr which prices it used. An empty spec changes nothing; with --discount too it is an error.
func (e *env) applyGCPCUD(ctx context.Context, spec string, in *plan.CommitInput) error {
	if spec == "" {
		return nil
	}
	if in.Discount != 0 {
		return gpucost.Errorf(gpucost.EInvalid, "--gcp-cud and --discount both give the discount: keep one")
	}
	machine, region, err := catalog.ParseMachineRegion(spec)
	if err != nil {
		return gpucost.Errorf(gpucost.EInvalid, "--gcp-cud %w", err)
	}
	c, err := e.loadCatalog(ctx)
	if err != nil {
		return err
	}
	commit, err := c.Commitment(machine, region, cmp.Or(string(in.Term), string(plan.Term1Year)))
	if err != nil {
		return err
	}
	in.Discount = commit.Discount()
	fmt.Fprintf(e.stderr, "gpucost: GCP %s committed-use price of %s in %s: %s/h against %s/h on-demand (%s): discount %.1f%%\n",
		commit.Term, machine, region, commit.Price.Fixed(4), commit.OnDemand.Fixed(4), gcpPricingSource, 100*in.Discount)
	return nil
}

// gcpPricingSource names where GCP committed-use prices come from, for messages.
const gcpPricingSource = "bundled pricing.yml, gpucost catalog issues --provider gcp"
