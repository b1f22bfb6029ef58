package cloudsource

import (
	"slices"
	"testing"
)

func TestSplitURLs(t *testing.T) {
	urls, paths := SplitURLs([]string{"jan.csv", "s3://b/exports/", "dir/", "azure://acct/c/p", "gs://b/p", "https://acct.blob.core.windows.net/c/p"})
	if want := []string{"s3://b/exports/", "azure://acct/c/p", "gs://b/p", "https://acct.blob.core.windows.net/c/p"}; !slices.Equal(urls, want) {
		t.Errorf("SplitURLs urls = %q, want %q", urls, want)
	}
	if want := []string{"jan.csv", "dir/"}; !slices.Equal(paths, want) {
		t.Errorf("SplitURLs paths = %q, want %q", paths, want)
	}
}
