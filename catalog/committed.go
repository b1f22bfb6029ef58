package catalog

import (
	"strings"

	"github.com/gpucost/gpucost"
)

// Commitment is the committed-use price of a GCP machine type in a region for a term, beside
// its on-demand price, both per hour.
type Commitment struct {
	Machine, Region, Term string
	Price, OnDemand       gpucost.Money
}

// Discount is the commitment's discount off on-demand: 1 − Price ÷ OnDemand.
func (c Commitment) Discount() float64 {
	return 1 - float64(c.Price.Nanos)/float64(c.OnDemand.Nanos)
}

// ParseMachineRegion splits "MACHINE_TYPE/REGION", such as "a3-highgpu-8g/us-central1". Its
// error starts with the value, for a flag's name to go before it.
func ParseMachineRegion(spec string) (machine, region string, err error) {
	machine, region, ok := strings.Cut(spec, "/")
	if !ok || machine == "" || region == "" {
		return "", "", gpucost.Errorf(gpucost.EInvalid, "%q: want MACHINE_TYPE/REGION, such as a3-highgpu-8g/us-central1", spec)
	}
	return machine, region, nil
}

// Commitment returns the GCP committed-use price of machine in region for term ("1y" or "3y")
// from the bundled pricing YAML (see Committed).
func (c *Catalog) Commitment(machine, region, term string) (Commitment, error) {
	price, onDemand, err := c.Committed(machine, region, term)
	return Commitment{Machine: machine, Region: region, Term: term, Price: price, OnDemand: onDemand}, err
}
