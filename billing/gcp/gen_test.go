package gcp

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost/billing/internal/billtest"
)

// exportGen writes a synthetic detailed export of a GPU fleet for benchmarks, as CSV with dotted
// names or as newline-delimited JSON: each VM bills its GPUs, cores and RAM every hour, with
// spot, CUD-covered and sustained-use rows, labels, system labels and an hourly tax row per
// project. Rows cycle through the resources hour by hour, as an export does. It is an
// io.Reader, so a file of any size streams without being held in memory.
type exportGen struct {
	*billtest.Stream
	json      bool
	resources int
	buf       []byte // the row being written
}

func newExportGen(json bool, rows, resources int) *exportGen {
	g := &exportGen{json: json, resources: resources}
	header := strings.Join(genColumns, ",") + "\n"
	if json {
		header = ""
	}
	g.Stream = billtest.NewStream(header, rows, 256, g.appendRow)
	return g
}

// genColumns are the CSV columns written, the detailed schema's.
var genColumns = strings.Split("billing_account_id,service.id,service.description,sku.id,sku.description,"+
	"usage_start_time,usage_end_time,project.id,project.number,project.name,project.ancestry_numbers,"+
	"project.labels,labels,system_labels,location.location,location.country,location.region,location.zone,"+
	"export_time,cost,currency,currency_conversion_rate,usage.amount,usage.unit,usage.amount_in_pricing_units,"+
	"usage.pricing_unit,credits,invoice.month,cost_type,adjustment_info.id,adjustment_info.description,"+
	"adjustment_info.type,adjustment_info.mode,tags,cost_at_list,transaction_type,seller_name,"+
	"price.effective_price,price.tier_start_amount,price.unit,price.pricing_unit_quantity,"+
	"subscription.instance_id,resource.name,resource.global_name", ",")

// genSKU is one hourly charge of a machine.
type genSKU struct {
	id, desc, price, units, unit, pricingUnit, usage string
}

// genMachines are GPU machine types with the SKUs they bill each hour (prices per hour, us-central1).
var genMachines = []struct {
	name string
	skus []genSKU
}{
	{"a2-highgpu-1g", []genSKU{{"039F-D0DA-4055", "Nvidia Tesla A100 GPU running in Americas", "2.93391", "1", "seconds", "hour", "3600"},
		{"E34A-8F7C-1B21", "A2 Instance Core running in Americas", "0.379332", "12", "seconds", "hour", "43200"},
		{"2C35-9D4E-77A0", "A2 Instance Ram running in Americas", "0.360145", "85", "byte-seconds", "gibibyte hour", "328460288000000"}}},
	{"a3-highgpu-8g", []genSKU{{"9E8D-7C6B-5A49", "Nvidia H100 80GB GPU running in Americas", "33.60609", "8", "seconds", "hour", "28800"},
		{"3A4B-5C6D-7E8F", "A3 Instance Core running in Americas", "5.150496", "208", "seconds", "hour", "748800"}}},
	{"g2-standard-8", []genSKU{{"F3B2-66D1-0C9E", "Nvidia L4 GPU running in Americas", "0.56004", "1", "seconds", "hour", "3600"},
		{"6B1D-3F4E-8A90", "G2 Instance Core running in Americas", "0.18264", "8", "seconds", "hour", "28800"}}},
	{"n1-standard-8", []genSKU{{"A7B8-C9D0-1E2F", "Nvidia Tesla T4 GPU running in Americas", "0.35", "1", "seconds", "hour", "3600"},
		{"2E27-4F75-95CD", "N1 Predefined Instance Core running in Americas", "0.252792", "8", "seconds", "hour", "28800"}}},
}

// appendRow appends row i to dst.
func (g *exportGen) appendRow(dst []byte, i int) []byte {
	g.buf = dst
	g.write(i)
	return g.buf
}

// write appends row i.
func (g *exportGen) write(i int) {
	r := i % g.resources
	hour := i / g.resources
	m := genMachines[r%len(genMachines)]
	sku := m.skus[(i/7)%len(m.skus)]
	start := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(hour%720) * time.Hour)
	team := billtest.Teams[r%len(billtest.Teams)]
	project := fmt.Sprintf("ml-%s-%d", team, r%20)
	zone := "us-central1-" + string(rune('a'+r%3))
	cost, desc, credits, costType := sku.price, sku.desc, "[]", "regular"
	switch r % 10 {
	case 7: // spot
		desc = "Spot Preemptible " + desc
		cost = "1.4341"
	case 8: // covered by a resource-based commitment
		credits = `[{"name":"Committed Usage Discount: Cpu","amount":-` + sku.price + `,"full_name":"","id":"Committed Usage Discount: Cpu","type":"COMMITTED_USAGE_DISCOUNT"}]`
	case 9: // sustained use
		credits = `[{"name":"Sustained Usage Discount","amount":-0.0` + strconv.Itoa(i%90+10) + `,"full_name":"","id":"Sustained Usage Discount","type":"SUSTAINED_USAGE_DISCOUNT"}]`
	}
	if i%97 == 0 {
		costType, desc, credits = "tax", "", "[]"
	}
	v := map[string]string{
		"billing_account_id": "01A2B3-C4D5E6-F7A8B9", "service.id": "6F81-5844-456A", "service.description": "Compute Engine",
		"sku.id": sku.id, "sku.description": desc,
		"usage_start_time": start.Format("2006-01-02 15:04:05 UTC"), "usage_end_time": start.Add(time.Hour).Format("2006-01-02 15:04:05 UTC"),
		"project.id": project, "project.number": strconv.Itoa(418602939000 + r%20), "project.name": "ML " + team,
		"project.ancestry_numbers": "/318560012345/502938471123/",
		"project.labels":           `[{"key":"team","value":"` + team + `"},{"key":"cost-center","value":"cc-` + strconv.Itoa(1000+r%20) + `"}]`,
		"labels":                   `[{"key":"team","value":"` + team + `"},{"key":"job","value":"job-` + strconv.Itoa(r%50) + `"}]`,
		"system_labels":            `[{"key":"compute.googleapis.com/machine_spec","value":"` + m.name + `"},{"key":"compute.googleapis.com/cores","value":"12"}]`,
		"location.location":        zone, "location.country": "US", "location.region": "us-central1", "location.zone": zone,
		"export_time": start.Add(13 * time.Hour).Format("2006-01-02 15:04:05.000000 UTC"), "cost": cost, "currency": "USD",
		"currency_conversion_rate": "1.0", "usage.amount": sku.usage, "usage.unit": sku.unit, "usage.amount_in_pricing_units": sku.units,
		"usage.pricing_unit": sku.pricingUnit, "credits": credits, "invoice.month": "202506", "cost_type": costType, "tags": "[]",
		"cost_at_list": sku.price, "transaction_type": "GOOGLE", "price.effective_price": sku.price, "price.tier_start_amount": "0",
		"price.unit": sku.pricingUnit, "price.pricing_unit_quantity": "1",
		"resource.name":        fmt.Sprintf("%s-%s-%d", team, m.name, r),
		"resource.global_name": fmt.Sprintf("//compute.googleapis.com/projects/%s/zones/%s/instances/%d", project, zone, 4917253315550087010+r),
	}
	if g.json {
		g.writeJSON(v)
	} else {
		g.writeCSV(v)
	}
}

// writeCSV appends the values as one CSV record, quoting those that need it.
func (g *exportGen) writeCSV(v map[string]string) {
	for j, c := range genColumns {
		if j > 0 {
			g.buf = append(g.buf, ',')
		}
		s := v[c]
		if !strings.ContainsAny(s, ",\"\n") {
			g.buf = append(g.buf, s...)
			continue
		}
		g.buf = append(append(append(g.buf, '"'), strings.ReplaceAll(s, `"`, `""`)...), '"')
	}
	g.buf = append(g.buf, '\n')
}

// writeJSON appends the values as one JSON row with nested records, as BigQuery exports it.
func (g *exportGen) writeJSON(v map[string]string) {
	q := strconv.Quote
	raw := func(k string) string { return v[k] }
	g.buf = append(g.buf, `{"billing_account_id":`+q(v["billing_account_id"])+
		`,"service":{"id":`+q(v["service.id"])+`,"description":`+q(v["service.description"])+`}`+
		`,"sku":{"id":`+q(v["sku.id"])+`,"description":`+q(v["sku.description"])+`}`+
		`,"usage_start_time":`+q(v["usage_start_time"])+`,"usage_end_time":`+q(v["usage_end_time"])+
		`,"project":{"id":`+q(v["project.id"])+`,"number":`+q(v["project.number"])+`,"name":`+q(v["project.name"])+
		`,"labels":`+raw("project.labels")+`,"ancestry_numbers":`+q(v["project.ancestry_numbers"])+`}`+
		`,"labels":`+raw("labels")+`,"system_labels":`+raw("system_labels")+
		`,"location":{"location":`+q(v["location.location"])+`,"country":"US","region":`+q(v["location.region"])+`,"zone":`+q(v["location.zone"])+`}`+
		`,"export_time":`+q(v["export_time"])+`,"cost":`+v["cost"]+`,"currency":"USD","currency_conversion_rate":1.0`+
		`,"usage":{"amount":`+v["usage.amount"]+`,"unit":`+q(v["usage.unit"])+`,"amount_in_pricing_units":`+v["usage.amount_in_pricing_units"]+
		`,"pricing_unit":`+q(v["usage.pricing_unit"])+`}`+
		`,"credits":`+raw("credits")+`,"invoice":{"month":"202506"},"cost_type":`+q(v["cost_type"])+`,"tags":[]`+
		`,"cost_at_list":`+v["cost_at_list"]+`,"transaction_type":"GOOGLE"`+
		`,"price":{"effective_price":`+q(v["price.effective_price"])+`,"tier_start_amount":"0","unit":`+q(v["price.unit"])+`,"pricing_unit_quantity":"1"}`+
		`,"resource":{"name":`+q(v["resource.name"])+`,"global_name":`+q(v["resource.global_name"])+`}}`+"\n"...)
}
