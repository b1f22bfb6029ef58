package s3

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/gpucost/gpucost/internal/awsrpc"
)

// emptySHA256 is the hex SHA-256 of no bytes, the payload hash of a request without a body.
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// body is a request body that can be read again for a retry, with its length and hex SHA-256.
type body struct {
	open   func() io.Reader
	size   int64
	sha256 string
	done   func() // called once the request is over, if not nil
}

// bytesBody is a body held in memory.
func bytesBody(b []byte) *body {
	sum := sha256.Sum256(b)
	return &body{open: func() io.Reader { return bytes.NewReader(b) }, size: int64(len(b)), sha256: hex.EncodeToString(sum[:])}
}

// sectionBody is size bytes of ra from off, hashed by reading them once; each try reads them
// again rather than holding them in memory.
func sectionBody(ra io.ReaderAt, off, size int64) (*body, error) {
	h := sha256.New()
	if n, err := io.Copy(h, io.NewSectionReader(ra, off, size)); err != nil || n != size {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return nil, shortBody(off+n, off+size, err)
	}
	return &body{open: func() io.Reader { return io.NewSectionReader(ra, off, size) }, size: size,
		sha256: hex.EncodeToString(h.Sum(nil))}, nil
}

// objectURL returns the URL of key in the bucket; "" is the bucket itself.
func (s *Store) objectURL(key string) string {
	u := *s.base
	if key == "" {
		if p := strings.TrimSuffix(u.Path, "/"); p != "" {
			u.Path = p
		}
		return u.String()
	}
	u.Path += key
	u.RawPath = escapePath(u.Path)
	return u.String()
}

// escapePath escapes a URL path as SigV4 and S3 do: every byte but letters, digits, '-', '.',
// '_', '~' and '/' as %XX.
func escapePath(p string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("-._~/", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}

// send makes one S3 request, signed and retried; the caller closes the answer's body.
func (s *Store) send(ctx context.Context, op, method, key string, query url.Values, b *body) (*http.Response, error) {
	target := s.objectURL(key)
	if len(query) > 0 {
		target += "?" + strings.ReplaceAll(query.Encode(), "+", "%20")
	}
	hash := emptySHA256
	if b != nil {
		hash = b.sha256
	}
	newReq := func() (*http.Request, error) {
		var r io.Reader
		if b != nil {
			r = b.open()
		}
		req, err := http.NewRequestWithContext(ctx, method, target, r)
		if err != nil {
			return nil, err
		}
		req.Header.Set("X-Amz-Content-Sha256", hash)
		if b != nil {
			req.ContentLength = b.size
			if b.size == 0 {
				req.Body = http.NoBody
			}
		}
		return req, nil
	}
	return s.rpc.Do(ctx, "S3 "+op, newReq, hash, awsrpc.XMLError)
}
