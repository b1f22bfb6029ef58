package awscur

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost/billing/internal/billtest"
)

// curGen writes a synthetic CUR 2.0 CSV of GPU-heavy usage for benchmarks: realistic cells in the
// columns of a real export, across resources, hours, accounts, teams and line item types. It is an
// io.Reader, so a file of any size streams without being held in memory.
type curGen struct {
	*billtest.Stream
	cols      []string
	index     map[string]int
	resources int
	buf       []byte // the row being written
	cells     [][]byte
	products  map[string][]byte
}

// columnsFull is every CUR 2.0 column, in the (alphabetical) order of an export.
func columnsFull() []string {
	return slices.Sorted(func(y func(string) bool) { forKeys(knownColumns, y) })
}

func forKeys(m map[string]bool, yield func(string) bool) {
	for k := range m {
		if !yield(k) {
			return
		}
	}
}

// columnsLean is the column set of a typical FinOps export that selects what cost tools read.
func columnsLean() []string {
	return strings.Fields(`bill_bill_type bill_billing_period_start_date bill_payer_account_id cost_category
	line_item_availability_zone line_item_currency_code line_item_line_item_description line_item_line_item_type
	line_item_net_unblended_cost line_item_operation line_item_product_code line_item_resource_id line_item_unblended_cost
	line_item_usage_account_id line_item_usage_amount line_item_usage_end_date line_item_usage_start_date
	line_item_usage_type pricing_public_on_demand_cost pricing_purchase_option pricing_rate_code pricing_term pricing_unit
	product product_instance_type product_region_code product_servicecode product_sku reservation_effective_cost
	reservation_reservation_a_r_n reservation_unused_amortized_upfront_fee_for_billing_period
	reservation_unused_recurring_fee resource_tags savings_plan_savings_plan_a_r_n savings_plan_savings_plan_effective_cost
	savings_plan_total_commitment_to_date savings_plan_used_commitment`)
}

func newCURGen(cols []string, rows, resources int) *curGen {
	g := &curGen{cols: cols, index: map[string]int{}, resources: resources,
		cells: make([][]byte, len(cols)), products: map[string][]byte{}}
	g.Stream = billtest.NewStream(strings.Join(cols, ",")+"\n", rows, 256, g.appendRow)
	for i, c := range cols {
		g.index[c] = i
	}
	return g
}

var genTypes = []struct {
	name  string
	price string
	gpus  string
}{
	{"p4d.24xlarge", "32.7726", "8"}, {"p5.48xlarge", "98.32", "8"}, {"g5.xlarge", "1.006", "1"},
	{"g5.12xlarge", "5.672", "4"}, {"g6.xlarge", "0.8048", "1"}, {"g4dn.xlarge", "0.526", "1"},
	{"p4de.24xlarge", "40.9657", "8"}, {"g6e.12xlarge", "10.4926", "4"},
}

// appendRow appends row i to dst.
func (g *curGen) appendRow(dst []byte, i int) []byte {
	g.buf = dst
	g.writeRow(i)
	return g.buf
}

func (g *curGen) set(col string, v []byte) {
	if i, ok := g.index[col]; ok {
		g.cells[i] = v
	}
}

func (g *curGen) setS(col, v string) { g.set(col, []byte(v)) }

// writeRow appends row i as CSV.
func (g *curGen) writeRow(i int) {
	for j := range g.cells {
		g.cells[j] = nil
	}
	r := i % g.resources
	hour := (i / g.resources) % 720
	it := genTypes[r%len(genTypes)]
	start := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(hour) * time.Hour)
	acct := strconv.Itoa(100000000000 + r%20*1111)
	team := billtest.Teams[r%len(billtest.Teams)]
	g.setS("bill_bill_type", "Anniversary")
	g.setS("bill_billing_period_start_date", "2025-06-01T00:00:00Z")
	g.setS("bill_billing_period_end_date", "2025-07-01T00:00:00Z")
	g.setS("bill_payer_account_id", "111122223333")
	g.setS("bill_payer_account_name", "Acme AI Org")
	g.setS("line_item_usage_account_id", acct)
	g.setS("line_item_usage_account_name", "account-"+acct[len(acct)-4:])
	g.setS("line_item_currency_code", "USD")
	g.setS("line_item_usage_start_date", start.Format(time.RFC3339))
	g.setS("line_item_usage_end_date", start.Add(time.Hour).Format(time.RFC3339))
	g.setS("identity_time_interval", start.Format(time.RFC3339)+"/"+start.Add(time.Hour).Format(time.RFC3339))
	g.setS("identity_line_item_id", fmt.Sprintf("%016x", uint64(i)*0x9e3779b97f4a7c15))
	g.setS("line_item_availability_zone", "us-east-1"+string(rune('a'+r%4)))
	g.setS("line_item_resource_id", fmt.Sprintf("i-0%016x", r))
	g.setS("line_item_product_code", "AmazonEC2")
	g.setS("product_servicecode", "AmazonEC2")
	g.setS("line_item_operation", "RunInstances")
	g.setS("product_region_code", "us-east-1")
	g.setS("product_instance_type", it.name)
	g.setS("product_product_family", "Compute Instance")
	g.setS("product_sku", "SKU"+strings.ToUpper(strings.ReplaceAll(it.name, ".", ""))+"00")
	g.setS("pricing_unit", "Hrs")
	g.setS("line_item_usage_amount", "1.0")
	g.setS("line_item_usage_type", "USE1-BoxUsage:"+it.name)
	g.setS("line_item_line_item_type", "Usage")
	g.setS("pricing_term", "OnDemand")
	g.setS("pricing_purchase_option", "On Demand")
	g.setS("pricing_rate_code", "SKU"+it.name+".JRTCKXETXF.6YS6EN2CT7")
	g.setS("line_item_line_item_description", "$"+it.price+" per On Demand Linux "+it.name+" Instance Hour")
	g.setS("line_item_unblended_cost", it.price)
	g.setS("line_item_unblended_rate", it.price)
	g.setS("line_item_blended_cost", it.price)
	g.setS("line_item_blended_rate", it.price)
	g.setS("pricing_public_on_demand_cost", it.price)
	g.setS("pricing_public_on_demand_rate", it.price)
	g.set("product", g.product(it.name, it.gpus))
	g.set("resource_tags", []byte(`{"user_team":"`+team+`","user_project":"proj-`+strconv.Itoa(r%40)+`","user_env":"prod"}`))
	if r%5 == 0 {
		g.setS("cost_category", `{"Team":"`+team+`"}`)
	}
	g.variant(r, i, it.price)
	g.appendCSV()
}

// variant turns some rows into spot, Savings Plan, reservation and data transfer lines.
func (g *curGen) variant(r, i int, price string) {
	switch r % 20 {
	case 14:
		g.setS("line_item_usage_type", "USE1-SpotUsage:"+genTypes[r%len(genTypes)].name)
		g.setS("pricing_term", "")
		g.setS("pricing_purchase_option", "")
		g.setS("line_item_unblended_cost", "9.8318")
	case 15:
		g.setS("line_item_line_item_type", "SavingsPlanCoveredUsage")
		g.setS("savings_plan_savings_plan_a_r_n", "arn:aws:savingsplans::111122223333:savingsplan/0b8e5c4d-7a21-4f3e-8d6c-2a9b1c0d3e4f")
		g.setS("savings_plan_savings_plan_effective_cost", "0.6533333333")
	case 16:
		g.setS("line_item_line_item_type", "SavingsPlanNegation")
		g.setS("savings_plan_savings_plan_a_r_n", "arn:aws:savingsplans::111122223333:savingsplan/0b8e5c4d-7a21-4f3e-8d6c-2a9b1c0d3e4f")
		g.setS("line_item_unblended_cost", "-"+price)
		g.setS("pricing_public_on_demand_cost", "")
	case 17:
		g.setS("line_item_line_item_type", "DiscountedUsage")
		g.setS("reservation_reservation_a_r_n", "arn:aws:ec2:us-east-1:444455556666:reserved-instances/6f2c1a7e-3b1d-4a8e-9c55-1f0e2d3c4b5a")
		g.setS("reservation_effective_cost", "3.2040000000")
		g.setS("line_item_unblended_cost", "0.0000000000")
		g.setS("pricing_term", "Reserved")
	case 18:
		g.setS("line_item_usage_type", "USE1-DataTransfer-Regional-Bytes")
		g.setS("line_item_operation", "InterZone-Out")
		g.setS("product_servicecode", "AWSDataTransfer")
		g.setS("line_item_usage_amount", "0.0001234567")
		g.setS("line_item_unblended_cost", strconv.FormatFloat(float64(i%1000)*0.0000012345, 'f', 10, 64))
		g.setS("line_item_line_item_description", "$0.01 per GB - US East (N. Virginia) data transfer, intra-region")
		g.setS("pricing_unit", "GB")
	}
}

// product is the product map cell of an instance type, as AWS fills it for EC2.
func (g *curGen) product(name, gpus string) []byte {
	if p, ok := g.products[name]; ok {
		return p
	}
	m := map[string]string{"product_name": "Amazon Elastic Compute Cloud", "servicename": "Amazon Elastic Compute Cloud",
		"instance_family": "GPU instance", "gpu": gpus, "marketoption": "OnDemand", "operating_system": "Linux",
		"tenancy": "Shared", "region": "us-east-1", "current_generation": "Yes", "capacitystatus": "Used",
		"location": "US East (N. Virginia)", "location_type": "AWS Region", "physical_processor": "AMD EPYC",
		"vcpu": "96", "memory": "768 GiB", "network_performance": "400 Gigabit", "storage": "8 x 1000 SSD"}
	b, _ := json.Marshal(m)
	g.products[name] = b
	return b
}

// appendCSV writes the cells as one CSV record, quoting those that need it.
func (g *curGen) appendCSV() {
	for j, c := range g.cells {
		if j > 0 {
			g.buf = append(g.buf, ',')
		}
		if !strings.ContainsAny(string(c), ",\"\n") {
			g.buf = append(g.buf, c...)
			continue
		}
		g.buf = append(g.buf, '"')
		for _, ch := range c {
			if ch == '"' {
				g.buf = append(g.buf, '"')
			}
			g.buf = append(g.buf, ch)
		}
		g.buf = append(g.buf, '"')
	}
	g.buf = append(g.buf, '\n')
}
