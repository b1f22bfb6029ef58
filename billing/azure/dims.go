package azure

import (
	"strconv"
	"strings"

	"github.com/gpucost/gpucost/billing/internal/jsontext"
)

// armType returns the resource type of an Azure Resource Manager id, lower-cased:
// "/subscriptions/…/resourcegroups/rg/providers/microsoft.compute/virtualmachines/vm1" →
// "microsoft.compute/virtualmachines", and child types join their parents
// ("microsoft.sql/servers/databases"). Ids without a provider part have none.
func armType(id string) string {
	i := strings.LastIndex(id, "/providers/")
	if i < 0 {
		return ""
	}
	rest := strings.Trim(id[i+len("/providers/"):], "/")
	ns, rest, ok := strings.Cut(rest, "/")
	if !ok {
		return ""
	}
	typ, rest, _ := strings.Cut(rest, "/")
	t := ns + "/" + typ
	for rest != "" { // name/childType/name/…
		_, rest, _ = strings.Cut(rest, "/")
		var child string
		child, rest, _ = strings.Cut(rest, "/")
		if child != "" {
			t += "/" + child
		}
	}
	return strings.ToLower(t)
}

// lastSegment returns the last path segment of a resource id: the resource's own name, as
// Microsoft's conversion guide takes ResourceName for MCA ("last(split(ResourceId, "/"))").
func lastSegment(id string) string {
	id = strings.TrimRight(id, "/")
	return id[strings.LastIndexByte(id, '/')+1:]
}

// regionAliases maps the location spellings that lower-casing and dropping spaces does not turn
// into a region id — the area-first names ("US East", "EU West", "AP Southeast") that older
// cost details and MeterRegion use — to region ids, as Microsoft's Regions data file
// (microsoft/finops-toolkit, src/open-data/Regions.csv) maps them for its FOCUS conversion.
var regionAliases = map[string]string{
	"useast": "eastus", "useast2": "eastus2", "useast3": "eastus3", "uswest": "westus", "uswest2": "westus2",
	"uswest3": "westus3", "uscentral": "centralus", "usnorthcentral": "northcentralus",
	"ussouthcentral": "southcentralus", "uswestcentral": "westcentralus", "eunorth": "northeurope",
	"euwest": "westeurope", "europenorth": "northeurope", "europewest": "westeurope", "apeast": "eastasia",
	"apsoutheast": "southeastasia", "asiaeast": "eastasia", "asiasoutheast": "southeastasia",
	"jaeast": "japaneast", "jawest": "japanwest", "aueast": "australiaeast", "ausoutheast": "australiasoutheast",
	"aucentral": "australiacentral", "aucentral2": "australiacentral2", "brsouth": "brazilsouth",
	"cacentral": "canadacentral", "caeast": "canadaeast", "incentral": "centralindia", "insouth": "southindia",
	"inwest": "westindia", "krcentral": "koreacentral", "krsouth": "koreasouth", "frcentral": "francecentral",
	"frsouth": "francesouth", "dewestcentral": "germanywestcentral", "noeast": "norwayeast", "nowest": "norwaywest",
	"aenorth": "uaenorth", "aecentral": "uaecentral", "unassigned": "global",
}

// regionID normalises a location to a region id as Microsoft's FOCUS conversion does: RegionId is
// the region name lower-cased without spaces ("East US 2" → "eastus2"; Regions.csv maps
// "unassigned" to "global"), with the area-first spellings of regionAliases.
func regionID(loc string) string {
	if loc == "" {
		return ""
	}
	var b strings.Builder
	for i := 0; i < len(loc); i++ {
		c := loc[i]
		switch {
		case c == ' ' || c == '_' || c == '-':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	id := b.String()
	if a, ok := regionAliases[id]; ok {
		return a
	}
	return id
}

// vmSizeKeys are the AdditionalInfo members that name a VM size: ServiceType, "the actual VM
// Size" (Azure Consumption API, UsageDetail additionalInfo; the FinOps toolkit reads it as
// x_SkuType), and VMSize, which some services write.
var vmSizeKeys = []string{"ServiceType", "VMSize"}

// instanceType returns the VM size of a row: the size AdditionalInfo names when it is one
// ("Standard_NC24ads_A100_v4"), else, on Virtual Machines meters, the size the meter name
// spells ("NC24ads A100 v4 Spot" → "Standard_NC24ads_A100_v4", the ARM SKU name the retail prices
// API pairs with that meter). Meters that name two sizes ("D2 v3/D2s v3") name none.
func instanceType(additionalInfo []byte, meterCategory, meterName string, scratch *[]byte) string {
	var size string
	_ = jsontext.Members(additionalInfo, jsontext.Bare|jsontext.SkipNested, scratch, func(k, v []byte) { // malformed: no size from it
		for _, key := range vmSizeKeys {
			if size == "" && strings.EqualFold(string(k), key) && isVMSize(v) {
				size = string(v)
			}
		}
	})
	if size != "" || fold(meterCategory) != "virtualmachines" {
		return size
	}
	name := strings.TrimSuffix(strings.TrimSuffix(meterName, " Spot"), " Low Priority")
	if size, ok := meterSizes[name]; ok {
		return size
	}
	if !sizeLike(name) || strings.ContainsAny(name, "/,") {
		return ""
	}
	return "Standard_" + strings.ReplaceAll(name, " ", "_")
}

// meterSizes holds the meter names whose size is not spelled as the meter: the ND A100 v4
// series' meter names the GPU ("ND96asr A100 v4") and its size does not (Standard_ND96asr_v4).
var meterSizes = map[string]string{"ND96asr A100 v4": "Standard_ND96asr_v4"}

// isVMSize reports whether v is an ARM VM size name: Standard_… or Basic_….
func isVMSize(v []byte) bool {
	s := string(v)
	return len(s) > 9 && strings.EqualFold(s[:9], "Standard_") || len(s) > 6 && strings.EqualFold(s[:6], "Basic_")
}

// sizeLike reports whether a meter name starts like a VM size: one to three capital letters and
// a digit ("NC24ads A100 v4", "D2s v3", "HB120rs v3"), not a word like "Compute Hours".
func sizeLike(s string) bool {
	i := 0
	for i < len(s) && i < 3 && 'A' <= s[i] && s[i] <= 'Z' {
		i++
	}
	return i > 0 && i < len(s) && '0' <= s[i] && s[i] <= '9'
}

// service is the ServiceName and ServiceCategory of an Azure resource type or consumed service.
type service struct{ name, category string }

// services holds Microsoft's FOCUS ServiceName and ServiceCategory for the resource types GPU
// spend runs on and the commitments that pay for it, from Microsoft's Services data file
// (microsoft/finops-toolkit, src/open-data/Services.csv), keyed by resource type or, for rows
// without a resource, by consumed service (lower case).
var services = map[string]service{
	"microsoft.compute/virtualmachines":                 {"Virtual Machines", "Compute"},
	"microsoft.compute/virtualmachinescalesets":         {"Virtual Machine Scale Sets", "Compute"},
	"microsoft.compute/disks":                           {"Virtual Machines", "Compute"},
	"microsoft.compute/snapshots":                       {"Virtual Machines", "Compute"},
	"microsoft.compute/images":                          {"Virtual Machines", "Compute"},
	"microsoft.compute/hostgroups":                      {"Azure Dedicated Host", "Compute"},
	"microsoft.compute/capacityreservationgroups":       {"Virtual Machines", "Compute"},
	"microsoft.classiccompute/virtualmachines":          {"Virtual Machines", "Compute"},
	"microsoft.containerservice/managedclusters":        {"Azure Kubernetes Service", "Compute"},
	"microsoft.containerinstance/containergroups":       {"Azure Container Instances", "Compute"},
	"microsoft.batch/batchaccounts":                     {"Batch", "Compute"},
	"microsoft.machinelearningservices/workspaces":      {"Azure Machine Learning", "AI and Machine Learning"},
	"microsoft.machinelearningservices/registries":      {"Azure Machine Learning", "AI and Machine Learning"},
	"microsoft.cognitiveservices/accounts":              {"Azure AI Services", "AI and Machine Learning"},
	"microsoft.databricks/workspaces":                   {"Azure Databricks", "Analytics"},
	"microsoft.storage/storageaccounts":                 {"Storage Accounts", "Storage"},
	"microsoft.capacity/reservationorders":              {"Azure Reservations", "Management and Governance"},
	"microsoft.capacity/reservationorders/reservations": {"Azure Reservations", "Management and Governance"},
	"microsoft.compute":                                 {"Virtual Machines", "Compute"},
	"microsoft.capacity":                                {"Azure Reservations", "Management and Governance"},
	"microsoft.billingbenefits":                         {"Azure Savings Plan for Compute", "Compute"},
}

// serviceOf returns the service of a row: by resource type, else by consumed service, else the
// older schemas' ServiceName column, else MeterCategory (which Microsoft maps to
// x_SkuMeterCategory) without a category.
func serviceOf(resourceType, consumedService, serviceName, meterCategory string) service {
	if s, ok := services[resourceType]; ok {
		return s
	}
	if s, ok := services[strings.ToLower(consumedService)]; ok {
		return s
	}
	if serviceName != "" {
		return service{name: serviceName}
	}
	return service{name: meterCategory}
}

// unit is the reading of a UnitOfMeasure: "10 Hours" prices blocks of ten hours.
type unit struct {
	block    float64 // the pricing block size: 10
	distinct string  // the unit itself, plural: "Hours"
	pricing  string  // the FOCUS PricingUnit: "Hours" for blocks of one, else "10 Hours"
}

// parseUnit reads a UnitOfMeasure as Microsoft's Pricing units data file does
// (microsoft/finops-toolkit, src/open-data/PricingUnits.csv: UsageToPricingRate and
// DistinctUnits): a leading block size, possibly abbreviated ("10K", "1M"), then the unit, made
// plural ("1 Hour" → 1 Hours, "100 Hours" → 100 Hours, "10000" → 10000 Units, "1/Month" → 1
// Units/Month). A unit without a number is a block of one, as written ("Hours", "GB").
func parseUnit(u string) unit {
	s := strings.TrimSpace(u)
	if s == "" {
		return unit{block: 1}
	}
	i := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return unit{block: 1, distinct: s, pricing: s}
	}
	n, _ := strconv.ParseFloat(s[:i], 64)
	rest := s[i:]
	if len(rest) > 0 && (len(rest) == 1 || rest[1] == '/' || rest[1] == ' ') {
		switch rest[0] {
		case 'K':
			n, rest = n*1e3, rest[1:]
		case 'M':
			n, rest = n*1e6, rest[1:]
		case 'B':
			n, rest = n*1e9, rest[1:]
		}
	}
	rest = strings.TrimSpace(rest)
	switch {
	case rest == "":
		rest = "Units"
	case rest[0] == '/':
		rest = "Units" + rest
	default:
		rest = plural(rest)
	}
	un := unit{block: n, distinct: rest, pricing: rest}
	if n != 1 {
		un.pricing = strconv.FormatFloat(n, 'f', -1, 64) + " " + rest
	}
	return un
}

// plurals spells the singular units of measure in plural, as FOCUS units are written.
var plurals = map[string]string{
	"hour": "Hours", "hr": "Hours", "hrs": "Hours", "day": "Days", "month": "Months", "minute": "Minutes",
	"second": "Seconds", "year": "Years", "unit": "Units", "user": "Users", "node": "Nodes", "device": "Devices",
}

// plural makes the last word of a unit plural: "GB Hour" → "GB Hours".
func plural(s string) string {
	i := strings.LastIndexByte(s, ' ') + 1
	if p, ok := plurals[strings.ToLower(s[i:])]; ok {
		return s[:i] + p
	}
	return s
}
