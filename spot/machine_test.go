package spot_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"syscall"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/spot"
	"github.com/gpucost/gpucost/spot/notice"
)

func usd(s string) gpucost.Money {
	m, err := gpucost.ParseMoney(s, "USD")
	if err != nil {
		panic(err)
	}
	return m
}

// offers are one instance type in three regions of aws, spot in two zones of us-east-1, and
// the same name on another provider.
var offers = []gpucost.Offer{
	{Provider: "aws", Region: "us-east-1", InstanceType: "g5.xlarge", OnDemand: usd("1.006"), HasOnDemand: true},
	{Provider: "aws", Region: "us-east-1", Zone: "use1-az4", InstanceType: "g5.xlarge", SpotPrice: usd("0.4886"), HasSpot: true},
	{Provider: "aws", Region: "us-east-1", Zone: "us-east-1a", InstanceType: "g5.xlarge", SpotPrice: usd("0.5100"), HasSpot: true},
	{Provider: "aws", Region: "eu-west-1", InstanceType: "G5.XLARGE", OnDemand: usd("1.123"), HasOnDemand: true, SpotPrice: usd("0.40"), HasSpot: true},
	{Provider: "aws", Region: "ap-south-1", InstanceType: "g5.xlarge", OnDemand: usd("1.500"), HasOnDemand: true},
	{Provider: "other", Region: "us-east-1", InstanceType: "g5.xlarge", OnDemand: usd("0.10"), HasOnDemand: true},
}

func TestPriceMachine(t *testing.T) {
	for _, tc := range []struct {
		name         string
		m            spot.Machine
		zoneID       string
		price, onDem string // "" for none
	}{
		{"spot in its zone by id", spot.Machine{Cloud: "aws", InstanceType: "g5.xlarge", Region: "us-east-1", Zone: "us-east-1d", Spot: true}, "use1-az4", "0.4886", "1.006"},
		{"spot in its zone by name", spot.Machine{Cloud: "aws", InstanceType: "g5.xlarge", Region: "us-east-1", Zone: "us-east-1a", Spot: true}, "", "0.51", "1.006"},
		{"on demand in its region", spot.Machine{Cloud: "aws", InstanceType: "g5.xlarge", Region: "eu-west-1"}, "", "1.123", "1.123"},
		{"median over the cloud's regions", spot.Machine{Cloud: "aws", InstanceType: "g5.xlarge"}, "", "1.123", "1.123"},
		{"a given price stays", spot.Machine{Cloud: "aws", InstanceType: "g5.xlarge", Region: "us-east-1", Price: usd("0.3"), HasPrice: true}, "", "0.3", "1.006"},
		{"unknown type", spot.Machine{Cloud: "aws", InstanceType: "p9.huge"}, "", "", ""},
	} {
		m := tc.m
		spot.PriceMachine(&m, offers, tc.zoneID)
		got := func(p gpucost.Money, ok bool) string {
			if !ok {
				return ""
			}
			return p.Decimal()
		}
		if got(m.Price, m.HasPrice) != tc.price || got(m.OnDemand, m.HasOnDemand) != tc.onDem {
			t.Errorf("PriceMachine(%s) = price %q, on demand %q; want %q, %q", tc.name, got(m.Price, m.HasPrice), got(m.OnDemand, m.HasOnDemand), tc.price, tc.onDem)
		}
	}
}

// TestDescribeMachineFlags: without a cloud the machine is what the options say, priced from
// the offers; a bad price names --price.
func TestDescribeMachineFlags(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	o := spot.MachineOptions{Cloud: notice.CloudNone, InstanceType: "g5.xlarge", Spot: false, Log: log,
		Offers: func(context.Context) ([]gpucost.Offer, error) { return offers, nil }}
	m, err := spot.DescribeMachine(context.Background(), o)
	if err != nil || m.Source != "flags" || m.InstanceType != "g5.xlarge" || m.Spot || !m.HasPrice || m.Price != usd("1.006") {
		t.Errorf("DescribeMachine(flags) = %+v, %v; want g5.xlarge on demand at the lower middle of every provider's 4 prices, 1.006", m, err)
	}
	o.InstanceType, o.Offers = "", nil // no instance type: the offers are not read
	if m, err := spot.DescribeMachine(context.Background(), o); err != nil || m.HasPrice {
		t.Errorf("DescribeMachine(no type) = %+v, %v; want no price", m, err)
	}
	o.Price = "cheap"
	if _, err := spot.DescribeMachine(context.Background(), o); gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), `--price "cheap"`) {
		t.Errorf("DescribeMachine(--price cheap) = %v; want an EInvalid error naming --price", err)
	}
}

func TestJobName(t *testing.T) {
	if n, err := spot.JobName("", "/scratch/llama-ft/"); err != nil || n != "llama-ft" {
		t.Errorf("JobName(no name, /scratch/llama-ft/) = %q, %v; want the folder's name", n, err)
	}
	if n, err := spot.JobName("run.2", "ckpt"); err != nil || n != "run.2" {
		t.Errorf("JobName(run.2) = %q, %v", n, err)
	}
	for _, bad := range []string{".hidden", "a/b", "a b"} {
		if _, err := spot.JobName(bad, "ckpt"); gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "--name") {
			t.Errorf("JobName(%q) = %v; want an EInvalid error naming --name", bad, err)
		}
	}
}

func TestParseSignal(t *testing.T) {
	for in, want := range map[string]syscall.Signal{"SIGTERM": syscall.SIGTERM, "usr1": syscall.SIGUSR1, "SigHup": syscall.SIGHUP} {
		if got, err := spot.ParseSignal(in); err != nil || got != want {
			t.Errorf("ParseSignal(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	_, err := spot.ParseSignal("KILL")
	if want := `--notice-signal "KILL": use one of SIGHUP, SIGINT, SIGTERM, SIGUSR1, SIGUSR2`; err == nil || err.Error() != want {
		t.Errorf("ParseSignal(KILL) = %v; want %q", err, want)
	}
}
