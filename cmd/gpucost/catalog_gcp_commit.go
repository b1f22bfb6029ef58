package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
)

// applyGCPCUD sets in.Discount from the catalog's GCP committed-use price of spec, a machine
// type and region ("a3-highgpu-8g/us-central1"), for in.Term: 1 − committed ÷ on-demand, both
// per hour from the bundled GCP pricing YAML (catalog.(*Catalog).Committed). It says on stderr
// which prices it used. An empty spec changes nothing; with --discount too it is an error.
func (e *env) applyGCPCUD(ctx context.Context, spec string, in *plan.CommitInput) error {
	if spec == "" {
		return nil
	}
	if in.Discount != 0 {
		return gpucost.Errorf(gpucost.EInvalid, "--gcp-cud and --discount both give the discount: keep one")
	}
	machine, region, ok := strings.Cut(spec, "/")
	if !ok || machine == "" || region == "" {
		return gpucost.Errorf(gpucost.EInvalid, "--gcp-cud %q: want MACHINE_TYPE/REGION, such as a3-highgpu-8g/us-central1", spec)
	}
	term := string(in.Term)
	if term == "" {
		term = string(plan.Term1Year)
	}
	c, err := e.loadCatalog(ctx)
	if err != nil {
		return err
	}
	commit, onDemand, err := c.Committed(machine, region, term)
	if err != nil {
		return err
	}
	in.Discount = 1 - float64(commit.Nanos)/float64(onDemand.Nanos)
	fmt.Fprintf(e.stderr, "gpucost: GCP %s committed-use price of %s in %s: %s/h against %s/h on-demand (%s): discount %.1f%%\n",
		term, machine, region, commit.Fixed(4), onDemand.Fixed(4), gcpPricingSource, 100*in.Discount)
	return nil
}

// gcpPricingSource names where GCP committed-use prices come from, for messages.
const gcpPricingSource = "bundled pricing.yml, gpucost catalog issues --provider gcp"
