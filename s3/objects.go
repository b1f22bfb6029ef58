package s3

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// Get opens the object under key, or returns an ENotFound Error.
func (s *Store) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	k, err := s.key(key)
	if err != nil {
		return nil, err
	}
	res, err := s.send(ctx, "GetObject", http.MethodGet, k, nil, nil)
	if err != nil {
		return nil, s.classify("get", key, err)
	}
	return res.Body, nil
}

// listPage is the part of a ListObjectsV2 answer the store reads.
type listPage struct {
	Contents []struct {
		Key          string    `xml:"Key"`
		Size         int64     `xml:"Size"`
		LastModified time.Time `xml:"LastModified"`
	} `xml:"Contents"`
	IsTruncated           bool   `xml:"IsTruncated"`
	NextContinuationToken string `xml:"NextContinuationToken"`
}

// List returns the objects whose keys start with prefix, in key order (S3 lists in UTF-8 byte
// order), reading every page.
func (s *Store) List(ctx context.Context, prefix string) ([]gpucost.Object, error) {
	q := url.Values{"list-type": {"2"}, "prefix": {s.prefix + prefix}}
	var out []gpucost.Object
	for {
		page, err := s.listPage(ctx, q)
		if err != nil {
			return nil, s.classify("list", prefix, err)
		}
		for _, o := range page.Contents {
			out = append(out, gpucost.Object{Key: strings.TrimPrefix(o.Key, s.prefix), Size: o.Size, Modified: o.LastModified})
		}
		if !page.IsTruncated || page.NextContinuationToken == "" {
			return out, nil
		}
		q.Set("continuation-token", page.NextContinuationToken)
	}
}

func (s *Store) listPage(ctx context.Context, q url.Values) (*listPage, error) {
	res, err := s.send(ctx, "ListObjectsV2", http.MethodGet, "", q, nil)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var page listPage
	if err := xml.NewDecoder(res.Body).Decode(&page); err != nil {
		return nil, fmt.Errorf("read the listing: %w", err)
	}
	return &page, nil
}

// Delete removes the object under key; a missing object is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	k, err := s.key(key)
	if err != nil {
		return err
	}
	res, err := s.send(ctx, "DeleteObject", http.MethodDelete, k, nil, nil)
	if err != nil {
		if err := s.classify("delete", key, err); gpucost.ErrorCode(err) != gpucost.ENotFound {
			return err
		}
		return nil
	}
	res.Body.Close()
	return nil
}
