package demo

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// The demo fleet's AWS accounts.
const (
	BillingAccount = "111122223333"
	Account        = "444455556666"
)

// volumeGB is the size of each instance's gp3 root volume; gp3PerGBMonth its list price in
// us-east-1 ($0.08 per GB-month), billed per hour over a 730-hour month as AWS does.
const (
	volumeGB      = 500
	gp3PerGBMonth = "0.08"
)

// InstanceID returns the EC2 instance id the bill names an instance by.
func (in Instance) InstanceID() string { return "i-0" + hexHash(in.Host, 16) }

func (in Instance) volumeID() string { return "vol-0" + hexHash(in.Host+"/root", 16) }

func hexHash(s string, n int) string {
	h := fnv.New64a()
	h.Write([]byte(s))
	return fmt.Sprintf("%016x", h.Sum64())[:n]
}

// Running reports whether the instance runs (and is billed) in the hour starting at t.
func (in Instance) Running(t time.Time) bool {
	_, _, ok := in.Workload(0, t, rand.New(rand.NewPCG(1, 1)))
	return ok
}

// Bill calls emit with the demo fleet's AWS bill from from to to, as AWS's FOCUS export writes
// it: per instance and hour it ran, one on-demand EC2 usage line at the price price gives for
// its instance type, and one for its root volume; tags team and project where the instance has
// them. The *CostLine is reused.
func Bill(fleet []Instance, from, to time.Time, price func(instanceType string) (gpucost.Money, bool), emit func(*gpucost.CostLine) error) error {
	gp3, err := gpucost.ParseMoney(gp3PerGBMonth, "USD")
	if err != nil {
		return err
	}
	volumeHour := gp3.MulFloat(volumeGB).DivInt(730)
	var l gpucost.CostLine
	for _, in := range fleet {
		p, ok := price(in.InstanceType)
		if !ok {
			return gpucost.Errorf(gpucost.ENotFound, "demo bill: no on-demand price for %s in %s", in.InstanceType, in.Region)
		}
		tags := gpucost.Labels{"env": "prod"}
		if in.Team != "" {
			tags["team"], tags["project"] = in.Team, in.Project
		}
		for t := from.Truncate(time.Hour); t.Before(to); t = t.Add(time.Hour) {
			if !in.Running(t) {
				continue
			}
			in.instanceLine(&l, t, p, tags)
			if err := emit(&l); err != nil {
				return err
			}
			in.volumeLine(&l, t, volumeHour, tags)
			if err := emit(&l); err != nil {
				return err
			}
		}
	}
	return nil
}

func (in Instance) line(l *gpucost.CostLine, t time.Time, cost gpucost.Money, tags gpucost.Labels) {
	month := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	*l = gpucost.CostLine{
		Provider: "AWS", BillingAccountID: BillingAccount, SubAccountID: Account, BillingPeriodStart: month,
		ChargePeriodStart: t, ChargePeriodEnd: t.Add(time.Hour),
		ChargeCategory: "Usage", ChargeFrequency: "Usage-Based", PricingCategory: "Standard",
		BilledCost: cost, EffectiveCost: cost, ListCost: cost, ContractedCost: cost,
		ServiceName: "Amazon Elastic Compute Cloud", ServiceCategory: "Compute",
		RegionID: in.Region, AvailabilityZone: in.Region + "a", Tags: tags,
	}
}

func (in Instance) instanceLine(l *gpucost.CostLine, t time.Time, price gpucost.Money, tags gpucost.Labels) {
	in.line(l, t, price, tags)
	l.ResourceID, l.ResourceType, l.InstanceType = in.InstanceID(), "Instance", in.InstanceType
	l.SkuID = strings.ToUpper(hexHash(in.Region+in.InstanceType, 14))
	l.SkuPriceID = l.SkuID + ".JRTCKXETXF.6YS6EN2CT7"
	l.ChargeDescription = fmt.Sprintf("$%s per On Demand Linux %s Instance Hour", price.Decimal(), in.InstanceType)
	l.ConsumedQuantity, l.ConsumedUnit, l.PricingQuantity, l.PricingUnit = 1, "Hours", 1, "Hours"
}

func (in Instance) volumeLine(l *gpucost.CostLine, t time.Time, cost gpucost.Money, tags gpucost.Labels) {
	in.line(l, t, cost, tags)
	l.ResourceID, l.ResourceType, l.ServiceCategory = in.volumeID(), "Volume", "Storage"
	l.SkuID = strings.ToUpper(hexHash(in.Region+"gp3", 14))
	l.SkuPriceID = l.SkuID + ".JRTCKXETXF.6YS6EN2CT7"
	l.ChargeDescription = "$0.08 per GB-month of General Purpose (gp3) provisioned storage - US East (Northern Virginia)"
	l.ConsumedQuantity, l.ConsumedUnit, l.PricingQuantity, l.PricingUnit = volumeGB/730.0, "GB-Mo", volumeGB/730.0, "GB-Mo"
}

// Inventory ties each instance of the fleet to its telemetry host.
func Inventory(fleet []Instance) []gpucost.InventoryEntry {
	out := make([]gpucost.InventoryEntry, len(fleet))
	for i, in := range fleet {
		out[i] = gpucost.InventoryEntry{ResourceID: in.InstanceID(), Host: in.Host, Provider: "aws",
			InstanceType: in.InstanceType, GPUs: in.GPUs}
	}
	return out
}
