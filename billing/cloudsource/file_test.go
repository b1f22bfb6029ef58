package cloudsource_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/cloudsource"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "sources.yaml")
		os.WriteFile(p, []byte(body), 0o600)
		return p
	}
	got, err := cloudsource.ReadFile(write("sources:\n  - name: aws\n    url: s3://b/exports/\n  - url: azure://acct/costs/gpu\n"))
	want := []cloudsource.Spec{{Name: "aws", URL: "s3://b/exports/"}, {Name: "azure://acct/costs/gpu", URL: "azure://acct/costs/gpu"}}
	if err != nil || len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("ReadFile = %+v, %v; want %+v", got, err, want)
	}
	for _, c := range []struct{ name, body, says string }{
		{"unknown field", "sources:\n  - name: a\n    uri: s3://b/\n", `unknown field "uri"; known fields here: name, url`},
		{"local path", "sources:\n  - name: a\n    url: /data/bills\n", "use s3://BUCKET/PREFIX"},
		{"twice", "sources:\n  - name: a\n    url: s3://b/\n  - name: a\n    url: s3://c/\n", "two sources are called a"},
		{"none", "sources: []\n", "names no sources"},
	} {
		_, err := cloudsource.ReadFile(write(c.body))
		if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: ReadFile = %v; want an %s error saying %q", c.name, err, gpucost.EInvalid, c.says)
		}
	}
}
