package spotrisk

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/spot"
)

// Zones maps an AWS account's zone names (us-east-1a) to zone IDs (use1-az4). AWS shuffles the
// names per account, so the same name is a different zone in two accounts, while an ID names
// the same zone everywhere: the bundled catalog and the advisor's pools use IDs, the runner's
// events and the bill use names (docs/architecture.md "Spot risk"). The mapping comes from the
// runner's events (each records both where the metadata service gives them) or from
// `aws ec2 describe-availability-zones` (ParseZones). The zero value knows no zone.
type Zones struct {
	ids   map[string]string // name → ID
	names map[string]string // ID → name
}

// Add records that zone name is zone id in this account; an empty one of the two is ignored.
func (z *Zones) Add(name, id string) {
	if name == "" || id == "" || name == id {
		return
	}
	if z.ids == nil {
		z.ids, z.names = map[string]string{}, map[string]string{}
	}
	z.ids[name], z.names[id] = id, name
}

// Len is the number of zones mapped.
func (z *Zones) Len() int {
	if z == nil {
		return 0
	}
	return len(z.ids)
}

// Names returns the mapping ID → name, for plan.FleetOptions.ZoneNames.
func (z *Zones) Names() map[string]string {
	if z == nil {
		return nil
	}
	return maps.Clone(z.names)
}

// AddEvents records the zone name and ID pairs the runner wrote in events.
func (z *Zones) AddEvents(events []spot.Event) {
	for _, ev := range events {
		z.Add(ev.Zone, ev.ZoneID)
	}
}

// ID returns the zone ID of zone, a zone ID or a name the mapping knows.
func (z *Zones) ID(zone string) (string, bool) {
	if IsZoneID(zone) {
		return zone, true
	}
	if z == nil {
		return "", false
	}
	id, ok := z.ids[zone]
	return id, ok
}

// Label writes zone with its other name where the mapping knows it: "us-east-1a (use1-az4)".
func (z *Zones) Label(zone string) string {
	if z == nil || zone == "" {
		return zone
	}
	if id, ok := z.ids[zone]; ok {
		return zone + " (" + id + ")"
	}
	if name, ok := z.names[zone]; ok {
		return zone + " (" + name + ")"
	}
	return zone
}

// ZoneMatch says whether two zones are the same.
type ZoneMatch int

const (
	ZoneSame      ZoneMatch = iota // the same zone: equal, or a name and the ID it maps to
	ZoneOther                      // different zones
	ZoneUnmatched                  // a zone ID and a zone name the mapping does not know
)

// Match compares zones a and b, each a zone name or a zone ID. Two names or two IDs compare as
// strings; a name and an ID compare through the mapping, and are ZoneUnmatched without it,
// never silently different.
func (z *Zones) Match(a, b string) ZoneMatch {
	if a == b {
		return ZoneSame
	}
	if IsZoneID(a) == IsZoneID(b) {
		return ZoneOther
	}
	ida, oka := z.ID(a)
	idb, okb := z.ID(b)
	switch {
	case !oka || !okb:
		return ZoneUnmatched
	case ida == idb:
		return ZoneSame
	}
	return ZoneOther
}

// IsZoneID reports whether zone is an AWS availability zone ID such as "use1-az1" (a Local Zone
// ID such as "use1-bos1-az1" too).
func IsZoneID(zone string) bool {
	i := strings.LastIndex(zone, "-az")
	if i <= 0 || i+3 == len(zone) {
		return false
	}
	return strings.Trim(zone[i+3:], "0123456789") == ""
}

// ParseZones reads the JSON `aws ec2 describe-availability-zones --output json` writes:
// {"AvailabilityZones": [{"ZoneName": "us-east-1a", "ZoneId": "use1-az4", …}, …]}. name
// names the file in errors.
func ParseZones(r io.Reader, name string) (*Zones, error) {
	var doc struct {
		AvailabilityZones []struct {
			ZoneName string
			ZoneID   string `json:"ZoneId"`
		}
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "zones file %s: %v; give the output of aws ec2 describe-availability-zones --output json", name, err)
	}
	z := &Zones{}
	for i, az := range doc.AvailabilityZones {
		if az.ZoneName == "" || !IsZoneID(az.ZoneID) {
			return nil, gpucost.Errorf(gpucost.EInvalid, "zones file %s: AvailabilityZones[%d] has ZoneName %q and ZoneId %q; each needs a name and an ID such as use1-az4, as aws ec2 describe-availability-zones --output json writes",
				name, i, az.ZoneName, az.ZoneID)
		}
		z.Add(az.ZoneName, az.ZoneID)
	}
	if z.Len() == 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "zones file %s lists no AvailabilityZones; give the output of aws ec2 describe-availability-zones --output json", name)
	}
	return z, nil
}

// unmatchedNote says which zones could not be matched, for the rate's sentence.
func unmatchedNote(zone string, others []string) string {
	slices.Sort(others)
	return fmt.Sprintf("zone unmatched: %s and the measured %s are a zone ID and names with no known mapping (give the runner's events with zone IDs, or --zones with aws ec2 describe-availability-zones --output json)",
		zone, strings.Join(slices.Compact(others), ", "))
}
