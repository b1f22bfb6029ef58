package catalog

import (
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// FindSpecs returns the datasheets of the GPUs gpu names, as Normalize reads it, or of its family
// ("a100" selects every A100); all of them when gpu is empty. A name that selects none is an
// EInvalid error listing the known GPUs.
func FindSpecs(gpu string) ([]gpucost.GPUModel, error) {
	models := Specs()
	if gpu == "" {
		return models, nil
	}
	canon, _ := Normalize(gpu)
	family := strings.ToUpper(strings.TrimSpace(gpu)) + "-"
	found := slices.DeleteFunc(slices.Clone(models), func(m gpucost.GPUModel) bool {
		return m.Name != canon && !strings.HasPrefix(strings.ToUpper(m.Name), family)
	})
	if len(found) == 0 {
		names := make([]string, len(models))
		for i, m := range models {
			names[i] = m.Name
		}
		return nil, gpucost.Errorf(gpucost.EInvalid, "unknown GPU %q: known GPUs are %s", gpu, strings.Join(names, ", "))
	}
	return found, nil
}

// IssuesOf returns the issues found in the bundled files of provider (any case), or in all of
// them when provider is empty. A provider the catalog has no offer from is an EInvalid error.
func (c *Catalog) IssuesOf(provider string) ([]gpucost.CatalogIssue, error) {
	if provider != "" && !slices.Contains(c.Providers(), strings.ToLower(provider)) {
		return nil, gpucost.Errorf(gpucost.EInvalid, "unknown provider %q: the catalog has offers from %s", provider, strings.Join(c.Providers(), ", "))
	}
	files := map[string]string{}
	for _, s := range c.sources {
		files[s.File] = s.Provider
	}
	var out []gpucost.CatalogIssue
	for _, is := range c.issues {
		if provider == "" || strings.EqualFold(files[is.Source], provider) {
			out = append(out, is)
		}
	}
	return out, nil
}

// Place names where an offer's price holds (spot prices vary by zone): the region, and the zone
// where the zone is not already named after the region (AWS zone IDs such as use1-az6 are not).
func Place(o gpucost.Offer) string {
	switch {
	case o.Zone == "":
		return o.Region
	case strings.HasPrefix(o.Zone, o.Region):
		return o.Zone
	}
	return o.Region + " " + o.Zone
}

// AgeDays returns how many whole days old the source's prices are at now, never below 0.
func (s Source) AgeDays(now time.Time) int { return max(int(now.Sub(s.AsOf).Hours()/24), 0) }

// Source returns the catalog's source of provider's prices, if it has one.
func (c *Catalog) Source(provider string) (Source, bool) {
	for _, s := range c.sources {
		if s.Provider == provider {
			return s, true
		}
	}
	return Source{}, false
}

// ReadImports reads SkyPilot vms.csv files (ParseSkyPilot) as offers taken at asOf. The provider
// of each file is provider when given, else told by its name (ProviderFromName). Every file is
// read before any is returned, so that one bad file stops an import whole.
func ReadImports(paths []string, provider string, asOf time.Time) ([]*Import, error) {
	var out []*Import
	for _, path := range paths {
		p := strings.ToLower(provider)
		if p == "" {
			var ok bool
			if p, ok = ProviderFromName(path); !ok {
				if p, ok = providerFromFile(path); !ok {
					return nil, gpucost.Errorf(gpucost.EInvalid, "%s: cannot tell the provider from the file name or its rows; say --provider aws|gcp|lambda|nebius|…", path)
				}
			}
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "import %s: %w", path, err)
		}
		im, err := ParseSkyPilot(f, path, p)
		f.Close()
		if err != nil {
			return nil, err
		}
		for i := range im.Offers {
			im.Offers[i].AsOf = asOf
		}
		out = append(out, im)
	}
	return out, nil
}
