package cloudsource

import (
	"bytes"
	"os"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/yamlerr"
	"go.yaml.in/yaml/v3"
)

// Spec is one source of a sources file: a name and the bucket prefix its bills land in.
type Spec struct {
	Name string `yaml:"name"`
	URL  string `yaml:"url"`
}

// sourcesFile is the YAML gpucost serve --pull-bills reads:
//
//	sources:
//	  - name: aws-cur
//	    url: s3://billing-bucket/exports/
//	  - name: azure-actual
//	    url: azure://costsacct/exports/gpu-actual
type sourcesFile struct {
	Sources []Spec `yaml:"sources"`
}

// ReadFile reads the sources file at path: every source named once, with a URL Open reads. A
// source without a name is called by its URL.
func ReadFile(path string) ([]Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "read bill sources: %w", err)
	}
	var f sourcesFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, yamlerr.Decode(path, err, map[string]string{"sourcesFile": "sources", "Spec": "name, url"})
	}
	if len(f.Sources) == 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "%s names no sources; list them under sources: with a name and a url such as s3://BUCKET/PREFIX (docs/bill-sources.md)", path)
	}
	var names []string
	for i, s := range f.Sources {
		if !IsURL(s.URL) || strings.HasPrefix(s.URL, "http://") {
			return nil, gpucost.Errorf(gpucost.EInvalid, "%s: source %d (%s): url %q: use s3://BUCKET/PREFIX, gs://BUCKET/PREFIX, azure://ACCOUNT/CONTAINER/PREFIX or https://ACCOUNT.blob.core.windows.net/CONTAINER/PREFIX", path, i+1, s.Name, s.URL)
		}
		if s.Name == "" {
			f.Sources[i].Name = s.URL
		}
		if slices.Contains(names, f.Sources[i].Name) {
			return nil, gpucost.Errorf(gpucost.EInvalid, "%s: two sources are called %s; name each once", path, f.Sources[i].Name)
		}
		names = append(names, f.Sources[i].Name)
	}
	return f.Sources, nil
}
