// Package cloudsource pulls bills from where the clouds deliver them: AWS Data Exports (CUR 2.0
// and FOCUS) and legacy CUR in an S3 bucket, Azure cost exports in a storage container, and
// plain bill files (a GCP billing export written from BigQuery) in either or in Google Cloud
// Storage. It lists a prefix, picks the current delivery of each export's billing period
// (Deliveries), downloads it within the byte limits and imports it through billimport, a newer
// delivery of the same export and period replacing the stored one as a restatement
// (docs/bill-sources.md).
package cloudsource

import (
	"context"
	"io"

	"github.com/gpucost/gpucost"
)

// Bucket is the part of an object store a pull reads: an S3 or GCS bucket (s3.Store) or an
// Azure container (azblob.Container), keyed from its root.
type Bucket interface {
	// List returns the objects whose keys start with prefix, in key order.
	List(ctx context.Context, prefix string) ([]gpucost.Object, error)
	// Get opens the object under key; ENotFound if there is none.
	Get(ctx context.Context, key string) (io.ReadCloser, error)
}

// Source is one place bills land: a prefix of a bucket.
type Source struct {
	Name   string // what the server's status and /metrics call it; the URL when empty
	URL    string // s3://BUCKET/PREFIX, gs://BUCKET/PREFIX or azure://ACCOUNT/CONTAINER/PREFIX, as given
	Bucket Bucket
	Root   string // the URL of the bucket's root, ending in "/": a key's URL is Root+key
	Prefix string // the keys under it are read
}

// Label is the source's name, or its URL.
func (s *Source) Label() string {
	if s.Name != "" {
		return s.Name
	}
	return s.URL
}
