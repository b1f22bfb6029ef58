package spot

import (
	"cmp"
	"context"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/spot/notice"
)

// MachineOptions say how to describe the machine a job runs on: what the person running it
// said, and where to ask for the rest.
type MachineOptions struct {
	Cloud        string       // notice.CloudAWS, CloudGCP, CloudAzure or CloudNone
	Probe        notice.Probe // the metadata endpoints
	InstanceType string       // wins over the metadata service's; "" to ask it
	Spot         bool         // whether the machine is spot, when SpotGiven or the service cannot say
	SpotGiven    bool
	Price        string // dollars per hour; "" for the catalog's price
	// Offers returns the catalog's offers; it is called only for a machine with an instance type.
	Offers func(context.Context) ([]gpucost.Offer, error)
	Log    *slog.Logger
}

// DescribeMachine describes this machine for the job's events: its host name; its instance
// type, region, zone and whether it is spot from the cloud's metadata service, where the
// options, when given, win; and its hourly price from o.Price or the catalog. A metadata
// service that cannot say is a warning, never a failure.
func DescribeMachine(ctx context.Context, o MachineOptions) (Machine, error) {
	host, _ := os.Hostname()
	m := Machine{Host: host, Cloud: o.Cloud, InstanceType: o.InstanceType, Spot: o.Spot, Source: "flags"}
	var d notice.Machine
	if o.Cloud != notice.CloudNone {
		var err error
		if d, err = notice.Describe(ctx, o.Cloud, o.Probe); err != nil {
			o.Log.Warn("the metadata service did not describe the whole machine; --instance-type and --spot fill in", "err", err)
		}
		m.Region, m.Zone, m.ZoneID, m.InstanceID = d.Region, d.Zone, d.ZoneID, d.InstanceID
		if m.InstanceType == "" {
			m.InstanceType = d.InstanceType
		}
		if !o.SpotGiven && d.KnowsSpot {
			m.Spot = d.Spot
		}
		m.Source = machineSource(d, o)
		o.Log.Info("machine", "instance_type", m.InstanceType, "region", m.Region, "zone", m.Zone, "spot", m.Spot, "from", m.Source)
	}
	if o.Price != "" {
		p, err := gpucost.ParseMoney(o.Price, "USD")
		if err != nil || p.Nanos < 0 {
			return m, gpucost.Errorf(gpucost.EInvalid, "--price %q: give dollars per hour, such as 1.212", o.Price)
		}
		m.Price, m.HasPrice = p, true
	}
	if m.InstanceType == "" {
		return m, nil
	}
	offers, err := o.Offers(ctx)
	if err != nil {
		return m, err
	}
	PriceMachine(&m, offers, d.ZoneID)
	if !m.HasPrice {
		o.Log.Warn("no catalog price for this machine; give --price to price it", "instance_type", m.InstanceType, "region", m.Region)
	}
	return m, nil
}

// machineSource says where the machine's description came from, for the start event.
func machineSource(d notice.Machine, o MachineOptions) string {
	var parts []string
	if d.InstanceType != "" || d.KnowsSpot || d.Region != "" {
		parts = append(parts, o.Cloud+" metadata")
		if d.Lifecycle != "" {
			parts[0] += " (" + d.Lifecycle + ")"
		}
	}
	if o.InstanceType != "" {
		parts = append(parts, "--instance-type")
	}
	if o.SpotGiven || !d.KnowsSpot {
		parts = append(parts, "--spot")
	}
	return strings.Join(parts, ", ")
}

// PriceMachine sets m's on-demand price, and its price unless it has one, from the catalog's
// offers of its instance type: those of its cloud and region when the catalog has them (a spot
// price from its own zone, by name or by zoneID, first), else the median over every region.
func PriceMachine(m *Machine, offers []gpucost.Offer, zoneID string) {
	var match []gpucost.Offer
	for _, o := range offers {
		if strings.EqualFold(o.InstanceType, m.InstanceType) {
			match = append(match, o)
		}
	}
	narrow := func(keep func(gpucost.Offer) bool) {
		var in []gpucost.Offer
		for _, o := range match {
			if keep(o) {
				in = append(in, o)
			}
		}
		if len(in) > 0 {
			match = in
		}
	}
	if m.Cloud != notice.CloudNone && m.Cloud != "" {
		narrow(func(o gpucost.Offer) bool { return o.Provider == m.Cloud })
	}
	if m.Region != "" {
		narrow(func(o gpucost.Offer) bool { return o.Region == m.Region })
	}
	var onDemand, spotPrices []gpucost.Money
	for _, o := range match {
		if o.HasOnDemand {
			onDemand = append(onDemand, o.OnDemand)
		}
	}
	if m.Zone != "" || zoneID != "" {
		narrow(func(o gpucost.Offer) bool { return o.HasSpot && o.Zone != "" && (o.Zone == m.Zone || o.Zone == zoneID) })
	}
	for _, o := range match {
		if o.HasSpot {
			spotPrices = append(spotPrices, o.SpotPrice)
		}
	}
	if p, ok := medianMoney(onDemand); ok {
		m.OnDemand, m.HasOnDemand = p, true
	}
	if !m.HasPrice {
		src := onDemand
		if m.Spot {
			src = spotPrices
		}
		m.Price, m.HasPrice = medianMoney(src)
	}
}

// medianMoney returns the median of prices across regions (the lower middle one for an even
// count): exact, and not swayed by one odd region.
func medianMoney(prices []gpucost.Money) (gpucost.Money, bool) {
	if len(prices) == 0 {
		return gpucost.Money{}, false
	}
	slices.SortFunc(prices, func(a, b gpucost.Money) int { return cmp.Compare(a.Nanos, b.Nanos) })
	return prices[(len(prices)-1)/2], true
}

// jobName is what a job may be called: one path element of the store.
var jobName = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*$`)

// JobName returns the job's name: name, or the checkpoint directory's own name when name is
// empty. It is an EInvalid error unless the name is one path element of the store.
func JobName(name, dir string) (string, error) {
	if name == "" {
		name = filepath.Base(filepath.Clean(dir))
	}
	if !jobName.MatchString(name) {
		return "", gpucost.Errorf(gpucost.EInvalid, "--name %q: use letters, digits, '.', '_' and '-'", name)
	}
	return name, nil
}

// signals are the signals ParseSignal accepts.
var signals = map[string]syscall.Signal{
	"SIGTERM": syscall.SIGTERM, "SIGINT": syscall.SIGINT, "SIGUSR1": syscall.SIGUSR1,
	"SIGUSR2": syscall.SIGUSR2, "SIGHUP": syscall.SIGHUP,
}

// ParseSignal reads the signal a command gets on a termination notice: SIGTERM, SIGINT,
// SIGUSR1, SIGUSR2 or SIGHUP, with or without the SIG, in any case.
func ParseSignal(s string) (os.Signal, error) {
	name := strings.ToUpper(s)
	if !strings.HasPrefix(name, "SIG") {
		name = "SIG" + name
	}
	sig, ok := signals[name]
	if !ok {
		names := slices.Sorted(maps.Keys(signals))
		return nil, gpucost.Errorf(gpucost.EInvalid, "--notice-signal %q: use one of %s", s, strings.Join(names, ", "))
	}
	return sig, nil
}
