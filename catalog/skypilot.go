package catalog

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gpucost/gpucost"
)

// Import is what reading one SkyPilot vms.csv gave: the offers, the wrong or missing facts found
// in it, and the rows left out by design (CPU-only types, accelerators that are not NVIDIA GPUs,
// GCP GPU price rows that only price a machine type).
type Import struct {
	Name     string // the file, as named to the reader
	Provider string
	Offers   []gpucost.Offer
	Issues   []gpucost.CatalogIssue
	Rows     int            // data rows read
	Skipped  map[string]int // rows left out by design, by reason
	Lines    []int          // the line each offer was read from, parallel to Offers

	Pricing *GCPPricing // a GCP pricing YAML's prices, committed-use included; nil for other formats
}

// SkippedRows returns the number of rows left out by design.
func (im *Import) SkippedRows() int {
	n := 0
	for _, c := range im.Skipped {
		n += c
	}
	return n
}

// ReadSkyPilot reads a SkyPilot v8 vms.csv of any cloud and returns its NVIDIA GPU offers and the
// issues found in it. See ParseSkyPilot.
func ReadSkyPilot(r io.Reader, name, provider string) ([]gpucost.Offer, []gpucost.CatalogIssue, error) {
	im, err := ParseSkyPilot(r, name, provider)
	if err != nil {
		return nil, nil, err
	}
	return im.Offers, im.Issues, nil
}

// ParseSkyPilot reads a SkyPilot v8 vms.csv. The column order is taken from the header, which
// differs per cloud; CRLF line ends are fine. Each offer's Source is name and its AsOf is zero:
// the caller knows when the file was published.
//
// Facts the file gets wrong are reported as issues, never copied: a GpuInfo memory size that
// contradicts the GPU's datasheet (the offer carries the datasheet figure), a price of 0.0 or an
// empty price (no price), an empty spot price where the file has spot prices elsewhere (no spot),
// negative or unparseable numbers (with line and column). A row with a bad field is kept when
// the rest of it is usable. For provider "gcp", machine types whose Price is the host alone
// (a2, a3, a4, g2) are priced as host + GPUs; see gcpJoin.
//
// An error is returned only when the file cannot be read as a SkyPilot catalog at all.
func ParseSkyPilot(r io.Reader, name, provider string) (*Import, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, gpucost.Errorf(gpucost.EInvalid, "read SkyPilot catalog %s: the file is empty; want a vms.csv with a header line", name)
	}
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "read SkyPilot catalog %s header: %w", name, err)
	}
	cols, err := parseHeader(header)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "read SkyPilot catalog %s: %w", name, err)
	}
	p := &skyReader{cols: cols, ncols: len(header), seen: map[offerKey]int{},
		im: &Import{Name: name, Provider: strings.ToLower(provider), Skipped: map[string]int{}}}
	if p.im.Provider == "gcp" {
		p.gcp = newGCPJoin()
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		var perr *csv.ParseError
		if errors.As(err, &perr) {
			p.issue(perr.Line, "", "", fmt.Sprintf("not valid CSV (%v): row left out", perr.Err))
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read SkyPilot catalog %s after line %d: %w", name, p.im.Rows+1, err)
		}
		line, _ := cr.FieldPos(0)
		p.im.Rows++
		p.record(rec, line)
	}
	p.finish()
	return p.im, nil
}

// columns holds the index of each column the reader uses; -1 for an optional column the file
// lacks.
type columns struct {
	instance, accel, count, vcpus, mem, gpuInfo, price, spot, region, zone int
}

func parseHeader(h []string) (columns, error) {
	idx := map[string]int{}
	for i, c := range h {
		c = strings.TrimSpace(strings.TrimPrefix(c, "\ufeff"))
		idx[c] = i
	}
	col := func(name string, required bool, missing *[]string) int {
		i, ok := idx[name]
		if !ok {
			if required {
				*missing = append(*missing, name)
			}
			return -1
		}
		return i
	}
	var missing []string
	c := columns{
		instance: col("InstanceType", true, &missing),
		accel:    col("AcceleratorName", true, &missing),
		count:    col("AcceleratorCount", true, &missing),
		vcpus:    col("vCPUs", true, &missing),
		mem:      col("MemoryGiB", true, &missing),
		price:    col("Price", true, &missing),
		spot:     col("SpotPrice", true, &missing),
		region:   col("Region", true, &missing),
		gpuInfo:  col("GpuInfo", false, &missing),
		zone:     col("AvailabilityZone", false, &missing),
	}
	if len(missing) > 0 {
		return c, fmt.Errorf("header lacks column %s (is this a SkyPilot v8 vms.csv?)", strings.Join(missing, ", "))
	}
	return c, nil
}

// skyReader turns the rows of one file into offers.
type skyReader struct {
	cols  columns
	ncols int
	im    *Import
	gcp   *gcpJoin

	anySpot   bool                   // some row has a spot price
	emptySpot []gpucost.CatalogIssue // reported only if anySpot: a provider without spot is no issue
	seen      map[offerKey]int       // offer key → index in im.Offers
	seenLine  []int                  // line of each offer
}

type offerKey struct{ region, zone, instance string }

// row is one data row's fields, as text.
type row struct {
	line                                   int
	instance, accel, region, zone, gpuInfo string
	rec                                    []string
}

func (p *skyReader) field(rec []string, i int) string {
	if i < 0 || i >= len(rec) {
		return ""
	}
	return strings.TrimSpace(rec[i])
}

func (p *skyReader) issue(line int, field, value, reason string) {
	p.im.Issues = append(p.im.Issues, gpucost.CatalogIssue{Source: p.im.Name, Line: line, Field: field, Value: value, Reason: reason})
}

func (p *skyReader) record(rec []string, line int) {
	if len(rec) != p.ncols {
		p.issue(line, "", "", fmt.Sprintf("row has %d fields, the header %d: row left out", len(rec), p.ncols))
		return
	}
	r := row{line: line, rec: rec,
		instance: p.field(rec, p.cols.instance), accel: p.field(rec, p.cols.accel),
		region: p.field(rec, p.cols.region), zone: p.field(rec, p.cols.zone), gpuInfo: p.field(rec, p.cols.gpuInfo)}
	if p.gcp != nil && r.accel == "" {
		if fam, ok := gcpFamilyOf(r.instance); ok {
			p.gcpMachine(r, fam)
			return
		}
	}
	model, ok := p.classify(r)
	if !ok {
		return
	}
	if r.region == "" {
		p.issue(line, "Region", "", "empty: row left out")
		return
	}
	if r.instance == "" {
		if p.gcp != nil {
			p.gcpGPU(r, model)
			return
		}
		p.issue(line, "InstanceType", "", "empty: row left out")
		return
	}
	p.addRow(r, model)
}

// classify returns the canonical GPU model of a row, or false when the row is left out by
// design: a CPU-only type, or an accelerator that is not an NVIDIA GPU. An NVIDIA GPU without
// a datasheet here keeps its SkyPilot name.
func (p *skyReader) classify(r row) (string, bool) {
	if r.accel == "" {
		p.im.Skipped["CPU-only (no accelerator)"]++
		return "", false
	}
	if model, ok := Normalize(r.accel); ok {
		return refineModel(model, r.instance), true
	}
	if strings.EqualFold(parseGPUInfo(r.gpuInfo).manufacturer, "NVIDIA") {
		return r.accel, true
	}
	p.im.Skipped["not an NVIDIA GPU: "+r.accel]++
	return "", false
}

// addRow makes the offer of a row that prices a whole instance.
func (p *skyReader) addRow(r row, model string) {
	count, ok := p.number(r, p.cols.count, "AcceleratorCount", true)
	if !ok || count <= 0 {
		if ok {
			p.issue(r.line, "AcceleratorCount", p.field(r.rec, p.cols.count), fmt.Sprintf("a GPU type needs a positive count (column %d): row left out", p.cols.count+1))
		}
		return
	}
	vcpus, _ := p.number(r, p.cols.vcpus, "vCPUs", false)
	mem, _ := p.number(r, p.cols.mem, "MemoryGiB", false)
	o := gpucost.Offer{
		Provider: p.im.Provider, Region: r.region, Zone: r.zone, InstanceType: r.instance,
		GPUModel: model, GPUCount: count, VCPUs: vcpus, MemoryGiB: mem,
		GPUMemoryGB: p.gpuMemoryGB(r, model, count),
		Source:      p.im.Name,
	}
	o.OnDemand, o.HasOnDemand = p.price(r, p.cols.price, "Price", "on-demand")
	o.SpotPrice, o.HasSpot = p.price(r, p.cols.spot, "SpotPrice", "spot")
	p.spotBelow(r, o.InstanceType, o.OnDemand, o.SpotPrice, o.HasOnDemand && o.HasSpot)
	p.add(o, r.line)
}

// spotBelow reports a row whose spot price is not below its on-demand price: a spot price is a
// discount, so one of the two is wrong. Both are kept as published.
func (p *skyReader) spotBelow(r row, what string, onDemand, spot gpucost.Money, both bool) {
	if both && !spot.Less(onDemand) {
		p.issue(r.line, "SpotPrice", spot.Decimal(), fmt.Sprintf("%s in %s: spot is not below the on-demand price %s",
			what, Place(gpucost.Offer{Region: r.region, Zone: r.zone}), onDemand.Decimal()))
	}
}

// add appends an offer; a later row with the same region, zone and instance type replaces an
// earlier one, and the duplicate is reported.
func (p *skyReader) add(o gpucost.Offer, line int) {
	k := offerKey{o.Region, o.Zone, o.InstanceType}
	if i, dup := p.seen[k]; dup {
		p.issue(line, "InstanceType", o.InstanceType, fmt.Sprintf("same region, zone and instance type as line %d: the later row is used", p.seenLine[i]))
		p.im.Offers[i] = o
		p.seenLine[i] = line
		return
	}
	p.seen[k] = len(p.im.Offers)
	p.im.Offers = append(p.im.Offers, o)
	p.seenLine = append(p.seenLine, line)
}

// number parses a non-negative decimal column. Empty is zero and, unless required, no issue.
func (p *skyReader) number(r row, col int, name string, required bool) (float64, bool) {
	s := p.field(r.rec, col)
	if s == "" {
		if required {
			p.issue(r.line, name, "", fmt.Sprintf("empty (column %d): row left out", col+1))
			return 0, false
		}
		return 0, true
	}
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
		p.issue(r.line, name, s, fmt.Sprintf("not a number (column %d)%s", col+1, leftOut(required)))
		return 0, false
	case v < 0:
		p.issue(r.line, name, s, fmt.Sprintf("negative (column %d)%s", col+1, leftOut(required)))
		return 0, false
	}
	return v, true
}

var errNotDecimal = errors.New("not a decimal")

// isDecimal reports whether s is a plain decimal such as "12.5", "-0.25" or "1e-3", with an
// exponent of at most two digits: ParseMoney would also take "1/3" and spend long on "1e99999999".
func isDecimal(s string) bool {
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	mant = trimSign(mant)
	whole, frac, _ := strings.Cut(mant, ".")
	if whole+frac == "" || !allDigits(whole) || !allDigits(frac) {
		return false
	}
	if hasExp {
		exp = trimSign(exp)
		return exp != "" && len(exp) <= 2 && allDigits(exp)
	}
	return true
}

func trimSign(s string) string {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		return s[1:]
	}
	return s
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func leftOut(required bool) string {
	if required {
		return ": row left out"
	}
	return ": taken as unknown"
}

// price parses a price column. An empty, zero, negative or unparseable price is no price; each
// but an empty spot price (a provider may sell no spot) is reported at once.
func (p *skyReader) price(r row, col int, name, what string) (gpucost.Money, bool) {
	s := p.field(r.rec, col)
	if s == "" {
		is := gpucost.CatalogIssue{Source: p.im.Name, Line: r.line, Field: name,
			Reason: fmt.Sprintf("empty (column %d): no %s price", col+1, what)}
		if what == "spot" {
			p.emptySpot = append(p.emptySpot, is)
		} else {
			p.im.Issues = append(p.im.Issues, is)
		}
		return gpucost.Money{}, false
	}
	m, err := gpucost.Money{}, errNotDecimal
	if isDecimal(s) { // first: ParseMoney would spend long on "1e99999999"
		m, err = gpucost.ParseMoney(s, "USD")
	}
	switch {
	case err != nil:
		p.issue(r.line, name, s, fmt.Sprintf("not a decimal amount (column %d): no %s price", col+1, what))
		return gpucost.Money{}, false
	case m.Nanos < 0:
		p.issue(r.line, name, s, fmt.Sprintf("negative (column %d): no %s price", col+1, what))
		return gpucost.Money{}, false
	case m.Nanos == 0:
		p.issue(r.line, name, s, fmt.Sprintf("a price of 0 is a missing price (column %d): no %s price", col+1, what))
		return gpucost.Money{}, false
	}
	if what == "spot" {
		p.anySpot = true
	}
	return m, true
}

// gpuMemoryGB returns the memory of one GPU: the datasheet figure for a known model, with an
// issue if GpuInfo says otherwise; GpuInfo's figure for a model without a datasheet here. For an
// instance with a fraction of a GPU it is the whole GPU's memory, of which the instance gets
// its fraction.
func (p *skyReader) gpuMemoryGB(r row, model string, count float64) float64 {
	info := parseGPUInfo(r.gpuInfo)
	perGPU := info.mib
	if count > 0 && count < 1 {
		perGPU = info.mib / count // a fractional GPU (AWS g6f) lists its share of the memory
	}
	spec, known := lookupSpec(model)
	if !known {
		return math.Round(perGPU/1024*10) / 10
	}
	if r.gpuInfo != "" && info.mib <= 0 {
		p.issue(r.line, "GpuInfo", r.gpuInfo, fmt.Sprintf("no SizeInMiB (column %d): %s memory taken from its datasheet", p.cols.gpuInfo+1, model))
	}
	if info.mib > 0 && !memoryAgrees(perGPU, spec.MemoryGB) {
		p.issue(r.line, "GpuInfo", fmt.Sprintf("%g MiB per GPU", perGPU),
			fmt.Sprintf("contradicts the datasheet: %s has %g GB (%s); the datasheet figure is used", model, spec.MemoryGB, sourceTitle(spec.Source)))
	}
	return spec.MemoryGB
}

// memoryAgrees reports whether a size in MiB is the datasheet's GB figure, read either as GiB
// or as decimal GB, within 10% (providers list usable memory: AWS gives an L4 22,888 MiB, which
// is 24.0 GB).
func memoryAgrees(mib, specGB float64) bool {
	near := func(x float64) bool { return math.Abs(x-specGB) <= 0.1*specGB }
	return near(mib/1024) || near(mib*1048576/1e9)
}

// sourceTitle returns the title part of a spec's Source, before its URL.
func sourceTitle(src string) string {
	if i := strings.Index(src, ", http"); i >= 0 {
		return src[:i]
	}
	return src
}

// gpuInfo is what the reader uses of SkyPilot's GpuInfo column, a Python dict literal such as
// {'Gpus': [{'Name': 'T4', 'Manufacturer': 'NVIDIA', 'Count': 1, 'MemoryInfo': {'SizeInMiB': 16384}}], ...}.
type gpuInfo struct {
	manufacturer string
	mib          float64 // per GPU; 0 when absent
}

func parseGPUInfo(s string) gpuInfo {
	var g gpuInfo
	if i := strings.Index(s, "'Manufacturer':"); i >= 0 {
		rest := strings.TrimSpace(s[i+len("'Manufacturer':"):])
		if v, ok := strings.CutPrefix(rest, "'"); ok {
			if j := strings.IndexByte(v, '\''); j >= 0 {
				g.manufacturer = v[:j]
			}
		}
	}
	if i := strings.Index(s, "'SizeInMiB':"); i >= 0 {
		rest := strings.TrimSpace(s[i+len("'SizeInMiB':"):])
		j := 0
		for j < len(rest) && (rest[j] >= '0' && rest[j] <= '9' || rest[j] == '.') {
			j++
		}
		if v, err := strconv.ParseFloat(rest[:j], 64); err == nil && v > 0 && !math.IsInf(v, 0) {
			g.mib = v
		}
	}
	return g
}

// finish joins GCP rows, reports empty spot prices if the file sells spot at all, and drops
// what the import needs no more.
func (p *skyReader) finish() {
	if p.gcp != nil {
		p.gcpFinish()
	}
	if p.anySpot {
		p.im.Issues = append(p.im.Issues, p.emptySpot...)
	}
	p.im.Lines = p.seenLine
	sortIssues(p.im.Issues)
}

// knownProviders are the clouds SkyPilot's v8 catalog has a vms.csv for.
var knownProviders = []string{"aws", "gcp", "azure", "lambda", "nebius", "oci", "runpod", "vast", "cudo",
	"fluidstack", "paperspace", "ibm", "hyperbolic", "hyperstack", "shadeform", "primeintellect",
	"seeweb", "verda", "mithril", "jarvislabs", "lium", "spheron", "yotta", "daytona"}

// ProviderFromName guesses a file's provider from its path: SkyPilot keeps catalogs/v8/aws/vms.csv,
// and copies are often named aws_vms.csv. It returns false when no part of the path names a
// provider (Lambda and Nebius files have the same header, so the header cannot tell).
func ProviderFromName(path string) (string, bool) {
	parts := strings.FieldsFunc(strings.ToLower(path), func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9')
	})
	for i := len(parts) - 1; i >= 0; i-- {
		if slices.Contains(knownProviders, parts[i]) {
			return parts[i], true
		}
	}
	return "", false
}

// rowSigns tell a provider from a vms.csv row: its instance type's shape, else its region's.
var rowSigns = []struct {
	provider         string
	instance, region *regexp.Regexp
}{
	{"azure", regexp.MustCompile(`^Standard_`), nil},
	{"lambda", regexp.MustCompile(`^(gpu|cpu)_\d+x_`), nil},
	{"nebius", regexp.MustCompile(`^(gpu|cpu)-[a-z0-9]+(-[a-z0-9]+)*_\d+(gpu|vcpu)-`), nil},
	{"gcp", regexp.MustCompile(`^(a2|a3|a4|g2|n1|n2|n2d|e2|c2|c3|ct\d\w*)-[a-z]+(-\d+[a-z]*)?`), regexp.MustCompile(`^[a-z]+-[a-z]+\d+$`)},
	{"aws", regexp.MustCompile(`^[a-z][a-z0-9-]*\.(\d*x?large|metal|medium|small|micro|nano)`), regexp.MustCompile(`^[a-z]{2}(-gov)?-[a-z]+-\d+$`)},
}

// ProviderFromRows tells a SkyPilot vms.csv file's provider from its rows, for a file whose name
// names none: Azure sizes start Standard_, Lambda's are gpu_1x_a10, Nebius's gpu-h100-sxm_8gpu-…,
// GCP's a2-highgpu-1g in regions like us-central1, AWS's p5.48xlarge in regions like us-east-1.
// It reads at most 200 rows and returns false unless they all point to one provider.
func ProviderFromRows(r io.Reader) (string, bool) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return "", false
	}
	inst, reg := slices.Index(header, "InstanceType"), slices.Index(header, "Region")
	if inst < 0 {
		return "", false
	}
	found := ""
	for n := 0; n < 200; n++ {
		rec, err := cr.Read()
		if err != nil {
			break
		}
		if inst >= len(rec) {
			continue
		}
		region := ""
		if reg >= 0 && reg < len(rec) {
			region = rec[reg]
		}
		p := providerOfRow(rec[inst], region)
		switch {
		case p == "":
			continue
		case found != "" && p != found:
			return "", false
		}
		found = p
	}
	return found, found != ""
}

// providerOfRow returns the provider whose signs instance (and region, where it has one) bear.
func providerOfRow(instance, region string) string {
	for _, s := range rowSigns {
		if s.instance.MatchString(instance) && (s.region == nil || region == "" || s.region.MatchString(region)) {
			return s.provider
		}
	}
	return ""
}

// providerFromFile is ProviderFromRows on the file at path; false when it cannot be read.
func providerFromFile(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	return ProviderFromRows(f)
}
