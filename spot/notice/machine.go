package notice

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// Machine is what a cloud's metadata service says about the machine it answers on.
type Machine struct {
	Cloud        string // CloudAWS, CloudGCP or CloudAzure
	InstanceType string // g5.xlarge, a2-highgpu-1g, Standard_NC24ads_A100_v4
	Region       string // us-east-1, us-central1, eastus
	Zone         string // us-east-1a, us-central1-a, "1"; empty where the machine has none
	ZoneID       string // AWS's availability-zone-id (use1-az1), the same zone in every account; empty elsewhere
	InstanceID   string // the resource ID the cloud's bill names the machine by (instanceid.go); empty when unknown
	Lifecycle    string // the service's own word: spot, on-demand, SPOT, STANDARD, Spot, Regular, Low…
	Spot         bool   // the machine can be reclaimed: spot, preemptible or low priority
	KnowsSpot    bool   // Lifecycle was read, so Spot is an answer and not a default
}

// Metadata paths Describe reads. AWS: instance metadata categories under /latest/meta-data/;
// GCP: keys under /computeMetadata/v1/; Azure: the compute section of the instance metadata.
const (
	awsMetaPath        = "/latest/meta-data/"
	gcpMetaPath        = "/computeMetadata/v1/"
	azureComputePath   = "/metadata/instance/compute?api-version=2021-02-01"
	describeTimeout    = 2 * time.Second
	gcpMachineTypesSeg = "machineTypes"
	gcpZonesSeg        = "zones"
)

// errMissing marks a key the service does not have (HTTP 404).
var errMissing = errors.New("not found")

// Describe asks cloud's metadata service (one of CloudAWS, CloudGCP, CloudAzure, at the
// endpoints p names) for the machine's instance type, region, zone and whether it is spot. It
// returns what it could read together with an error naming what it could not, so a caller can
// use a partial answer and warn about the rest; an unreachable service gives an empty Machine
// and an EUnavailable error. CloudNone gives an empty Machine and no error. p.Timeout bounds the
// whole description; 2 s when zero.
func Describe(ctx context.Context, cloud string, p Probe) (Machine, error) {
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = describeTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := p.Client
	if c == nil {
		c = http.DefaultClient
	}
	var m Machine
	var err error
	switch cloud {
	case CloudNone:
		return Machine{}, nil
	case CloudAWS:
		m, err = p.describeAWS(ctx, c)
	case CloudGCP:
		m, err = p.describeGCP(ctx, c)
	case CloudAzure:
		m, err = p.describeAzure(ctx, c)
	default:
		return Machine{}, gpucost.Errorf(gpucost.EInvalid, "describe the machine: cloud %q is not aws, gcp, azure or none", cloud)
	}
	if err != nil && m.InstanceType == "" && m.Region == "" && !m.KnowsSpot {
		return Machine{}, gpucost.Errorf(gpucost.EUnavailable, "describe the machine from the %s metadata service: %w", cloud, err)
	}
	if err != nil {
		return m, fmt.Errorf("describe the machine from the %s metadata service: %w", cloud, err)
	}
	return m, nil
}

// describeAWS reads the instance metadata with an IMDSv2 token.
func (p Probe) describeAWS(ctx context.Context, c *http.Client) (Machine, error) {
	base, err := baseURL(p.AWS, DefaultAWSEndpoint)
	if err != nil {
		return Machine{}, gpucost.Errorf(gpucost.EInvalid, "aws metadata endpoint %q: %v", p.AWS, err)
	}
	w := &awsWatch{settings: newSettings(c, 0, nil, nil), base: base, ttl: time.Minute}
	if err := w.ensureToken(ctx); err != nil {
		return Machine{}, err
	}
	keys := []string{"instance-type", "placement/region", "placement/availability-zone", "placement/availability-zone-id", "instance-life-cycle", "instance-id"}
	vals := make([]string, len(keys))
	var errs []error
	for i, k := range keys {
		status, body, err := w.get(ctx, awsMetaPath+k)
		vals[i], err = metaValue(awsMetaPath+k, status, body, err)
		if status == 0 {
			return Machine{}, err // the service stopped answering: asking on only repeats it
		}
		if err != nil && !(errors.Is(err, errMissing) && (k == "placement/region" || k == "placement/availability-zone-id" || k == "instance-id")) {
			errs = append(errs, err) // older instances lack the region and zone id; the zone gives the region
		}
	}
	m, err := ParseAWSMachine(vals[0], vals[1], vals[2], vals[3], vals[4])
	m.InstanceID = vals[5] // for report spot's match of runs to bill lines
	return m, errors.Join(append(errs, err)...)
}

// describeGCP reads the GCE metadata server's instance keys.
func (p Probe) describeGCP(ctx context.Context, c *http.Client) (Machine, error) {
	host := p.GCPHost
	if host == "" {
		host = DefaultGCPHost
	}
	base, err := baseURL("http://"+host, "")
	if err != nil || strings.ContainsAny(host, "/?#") {
		return Machine{}, gpucost.Errorf(gpucost.EInvalid, "gcp metadata host %q: give host[:port] without a scheme", host)
	}
	keys := []string{"instance/machine-type", "instance/zone", "instance/scheduling/provisioning-model", "instance/scheduling/preemptible",
		"instance/id", "project/project-id"}
	vals := make([]string, len(keys))
	var errs []error
	for i, k := range keys {
		req, err := http.NewRequest(http.MethodGet, base+gcpMetaPath+k, nil)
		if err != nil {
			return Machine{}, fmt.Errorf("build request: %w", err)
		}
		req.Header.Set("Metadata-Flavor", "Google")
		status, _, body, err := do(ctx, c, req, requestTimeout)
		vals[i], err = metaValue(gcpMetaPath+k, status, body, err)
		if status == 0 {
			return Machine{}, err // the server does not answer: asking on only repeats it
		}
		if err != nil && !(errors.Is(err, errMissing) && k != "instance/machine-type" && k != "instance/zone") {
			errs = append(errs, err) // a VM from before Spot VMs has only one of the two scheduling keys
		}
	}
	m, err := ParseGCPMachine(vals[0], vals[1], vals[2], vals[3])
	id, idErr := GCPResourceName(vals[5], vals[1], vals[4])
	m.InstanceID = id // for report spot's match of runs to bill lines
	return m, errors.Join(append(errs, err, idErr)...)
}

// describeAzure reads the compute section of the Azure instance metadata, on the host of the
// Scheduled Events URL.
func (p Probe) describeAzure(ctx context.Context, c *http.Client) (Machine, error) {
	events, _, err := azureURLs(p.AzureURL)
	if err != nil {
		return Machine{}, err
	}
	u, err := url.Parse(events)
	if err != nil {
		return Machine{}, fmt.Errorf("parse azure metadata URL: %w", err)
	}
	target := u.Scheme + "://" + u.Host + azureComputePath
	status, body, err := azureRequest(ctx, c, http.MethodGet, target, nil)
	if _, err := metaValue(azureComputePath, status, body, err); err != nil {
		return Machine{}, err
	}
	m, err := ParseAzureCompute(body)
	if err != nil {
		return m, fmt.Errorf("%s: %w", azureComputePath, err)
	}
	return m, nil
}

// metaValue turns one metadata answer into its trimmed value, or an error naming path.
func metaValue(path string, status int, body []byte, err error) (string, error) {
	switch {
	case err != nil:
		return "", fmt.Errorf("GET %s: %w", path, err)
	case status == http.StatusNotFound:
		return "", fmt.Errorf("GET %s: %w", path, errMissing)
	case status != http.StatusOK:
		return "", fmt.Errorf("GET %s: HTTP %d %q", path, status, snippet(body))
	}
	return strings.TrimSpace(string(body)), nil
}

// awsZone is an availability zone name: a region and one letter (us-east-1a).
var awsZone = regexp.MustCompile(`^([a-z]{2}(?:-[a-z]+)+-\d+)[a-z]$`)

// ParseAWSMachine reads the instance metadata values instance-type, placement/region,
// placement/availability-zone, placement/availability-zone-id and instance-life-cycle (spot,
// on-demand or scheduled). An empty region is taken from a regional zone name (us-east-1a). It
// returns what it could read and an error naming each value it could not.
func ParseAWSMachine(instanceType, region, zone, zoneID, lifecycle string) (Machine, error) {
	m := Machine{Cloud: CloudAWS, Lifecycle: lifecycle}
	var errs []error
	for _, f := range []struct {
		name, v string
		dst     *string
	}{{"instance-type", instanceType, &m.InstanceType}, {"placement/region", region, &m.Region},
		{"placement/availability-zone", zone, &m.Zone}, {"placement/availability-zone-id", zoneID, &m.ZoneID}} {
		if validName(f.v) {
			*f.dst = f.v
		} else if f.v != "" {
			errs = append(errs, fmt.Errorf("%s %q is not a name", f.name, snippet([]byte(f.v))))
		}
	}
	if m.Region == "" {
		if g := awsZone.FindStringSubmatch(m.Zone); g != nil {
			m.Region = g[1]
		}
	}
	switch lifecycle {
	case "spot":
		m.Spot, m.KnowsSpot = true, true
	case "on-demand", "scheduled":
		m.KnowsSpot = true
	case "":
	default:
		m.Lifecycle = ""
		errs = append(errs, fmt.Errorf("instance-life-cycle %q is not spot, on-demand or scheduled", snippet([]byte(lifecycle))))
	}
	return m, errors.Join(errs...)
}

// ParseGCPMachine reads the GCE metadata values instance/machine-type
// (projects/NUM/machineTypes/NAME), instance/zone (projects/NUM/zones/ZONE),
// instance/scheduling/provisioning-model (SPOT or STANDARD) and instance/scheduling/preemptible
// (TRUE or FALSE); empty values are ones the server did not have. The region is the zone less
// its last "-x". A VM is spot when it is a Spot VM or a preemptible VM.
func ParseGCPMachine(machineType, zone, provisioningModel, preemptible string) (Machine, error) {
	m := Machine{Cloud: CloudGCP}
	var errs []error
	if machineType != "" {
		name, err := gcpResource(machineType, gcpMachineTypesSeg)
		m.InstanceType = name
		errs = append(errs, err)
	}
	if zone != "" {
		name, err := gcpResource(zone, gcpZonesSeg)
		if i := strings.LastIndexByte(name, '-'); err == nil && i > 0 {
			m.Zone, m.Region = name, name[:i]
		} else if err == nil {
			err = fmt.Errorf("instance/zone %q has no region part", zone)
		}
		errs = append(errs, err)
	}
	switch strings.ToUpper(provisioningModel) {
	case "SPOT":
		m.Lifecycle, m.Spot, m.KnowsSpot = "SPOT", true, true
	case "STANDARD", "":
		switch strings.ToUpper(preemptible) {
		case "TRUE":
			m.Lifecycle, m.Spot, m.KnowsSpot = "preemptible", true, true
		case "FALSE":
			m.Lifecycle, m.KnowsSpot = "STANDARD", true
		case "":
			if provisioningModel != "" {
				m.Lifecycle, m.KnowsSpot = "STANDARD", true
			}
		default:
			errs = append(errs, fmt.Errorf("instance/scheduling/preemptible %q is not TRUE or FALSE", snippet([]byte(preemptible))))
		}
	default:
		errs = append(errs, fmt.Errorf("instance/scheduling/provisioning-model %q is not SPOT or STANDARD", snippet([]byte(provisioningModel))))
	}
	return m, errors.Join(errs...)
}

// gcpResource returns NAME from a metadata value projects/NUM/<collection>/NAME.
func gcpResource(v, collection string) (string, error) {
	parts := strings.Split(v, "/")
	n := len(parts)
	if n < 2 || parts[n-2] != collection || !validName(parts[n-1]) {
		return "", fmt.Errorf("%q is not a path ending in %s/NAME", snippet([]byte(v)), collection)
	}
	return parts[n-1], nil
}

// validName accepts the characters instance types, regions and zones use.
func validName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// ParseAzureCompute reads the compute section of the Azure instance metadata
// (/metadata/instance/compute): vmSize, location, zone, priority (Regular, Spot or Low, the
// older name of Spot on scale sets) and the VM's resource ID (resourceId, else built from
// subscriptionId, resourceGroupName and name). It returns what it could read and an error
// naming each field it could not; a document that is not JSON is an error alone.
func ParseAzureCompute(b []byte) (Machine, error) {
	var doc struct {
		azureCompute
		VMSize   string `json:"vmSize"`
		Location string `json:"location"`
		Zone     string `json:"zone"`
		Priority string `json:"priority"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return Machine{}, fmt.Errorf("malformed compute metadata JSON: %w", err)
	}
	m := Machine{Cloud: CloudAzure, Lifecycle: doc.Priority}
	var errs []error
	id, err := doc.armID()
	m.InstanceID = id
	errs = append(errs, err)
	for _, f := range []struct {
		name, v string
		dst     *string
	}{{"vmSize", doc.VMSize, &m.InstanceType}, {"location", doc.Location, &m.Region}, {"zone", doc.Zone, &m.Zone}} {
		switch {
		case validName(f.v):
			*f.dst = f.v
		case f.v != "":
			errs = append(errs, fmt.Errorf("compute field %s %q is not a name", f.name, snippet([]byte(f.v))))
		case f.name != "zone":
			errs = append(errs, fmt.Errorf("compute field %s is missing", f.name))
		}
	}
	switch strings.ToLower(doc.Priority) {
	case "spot", "low":
		m.Spot, m.KnowsSpot = true, true
	case "regular":
		m.KnowsSpot = true
	case "":
		errs = append(errs, fmt.Errorf("compute field priority is missing"))
	default:
		m.Lifecycle = ""
		errs = append(errs, fmt.Errorf("compute field priority %q is not Regular, Spot or Low", snippet([]byte(doc.Priority))))
	}
	return m, errors.Join(errs...)
}
