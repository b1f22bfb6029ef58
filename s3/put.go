package s3

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// Put uploads size bytes from r under key: in one request up to twice PartSize, in parallel
// parts above, each signed with its SHA-256. A size of -1 reads r to its end. A reader that ends
// early fails the upload and leaves the old object.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	k, err := s.key(key)
	if err != nil {
		return err
	}
	if err := s.put(ctx, k, r, size); err != nil {
		return s.classify("put", key, err)
	}
	return nil
}

func (s *Store) put(ctx context.Context, k string, r io.Reader, size int64) error {
	if ra, ok := r.(io.ReaderAt); ok && size >= 0 {
		// A file goes up in sections read at their offsets, in parallel and without copying
		// them into buffers first.
		if size <= 2*PartSize {
			b, err := sectionBody(ra, 0, size)
			if err != nil {
				return err
			}
			return s.putObject(ctx, k, b)
		}
		return s.multipart(ctx, k, func(off int64) (*body, error) {
			if off >= size {
				return nil, io.EOF
			}
			return sectionBody(ra, off, min(PartSize, size-off))
		})
	}
	if size >= 0 {
		r = io.LimitReader(r, size) // as the SDK did, bytes past size are not sent
	}
	// Read the first 2×PartSize+1 bytes: an object no larger goes up in one request.
	first, err := io.ReadAll(io.LimitReader(r, 2*PartSize+1))
	if err != nil {
		return fmt.Errorf("read the body: %w", err)
	}
	if len(first) <= 2*PartSize {
		if size >= 0 && int64(len(first)) != size {
			return shortBody(int64(len(first)), size, io.ErrUnexpectedEOF)
		}
		return s.putObject(ctx, k, bytesBody(first))
	}
	rest := io.MultiReader(bytes.NewReader(first), r)
	// The part buffers: multipart reads a part only while fewer than Concurrency are in flight.
	buffers := make(chan []byte, Concurrency)
	for range Concurrency {
		buffers <- nil
	}
	return s.multipart(ctx, k, func(off int64) (*body, error) {
		buf := <-buffers
		if buf == nil {
			buf = make([]byte, PartSize)
		}
		n, err := io.ReadFull(rest, buf)
		switch {
		case err == io.EOF && size >= 0 && off != size:
			buffers <- buf
			return nil, shortBody(off, size, io.ErrUnexpectedEOF)
		case err == io.EOF:
			buffers <- buf
			return nil, io.EOF
		case err != nil && err != io.ErrUnexpectedEOF:
			buffers <- buf
			return nil, fmt.Errorf("read the body: %w", err)
		}
		b := bytesBody(buf[:n])
		b.done = func() { buffers <- buf }
		return b, nil
	})
}

func shortBody(got, want int64, err error) error {
	return fmt.Errorf("body ended %d bytes short: %w", want-got, err)
}

func (s *Store) putObject(ctx context.Context, k string, b *body) error {
	res, err := s.send(ctx, "PutObject", http.MethodPut, k, nil, b)
	if err != nil {
		return err
	}
	res.Body.Close()
	return nil
}

// completedPart is one part of a CompleteMultipartUpload request.
type completedPart struct {
	PartNumber int    `xml:"PartNumber"`
	ETag       string `xml:"ETag"`
}

// multipart uploads the parts next returns, one after another from offset 0, until it returns
// io.EOF; Concurrency parts are sent at once, and next is called only while fewer are in flight.
// A body's done function, if any, is called once its part is sent or has failed. A failure
// aborts the upload, so that no parts are left behind.
func (s *Store) multipart(ctx context.Context, k string, next func(off int64) (*body, error)) error {
	id, err := s.createUpload(ctx, k)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		parts []completedPart
		slots = make(chan struct{}, Concurrency)
	)
	var off int64
	for n := 1; ctx.Err() == nil; n++ {
		slots <- struct{}{} // before reading the next part: its buffer may still be in flight
		b, err := next(off)
		if err == io.EOF {
			<-slots
			break
		}
		if err != nil {
			<-slots
			cancel(err)
			break
		}
		off += b.size
		wg.Go(func() {
			defer func() {
				if b.done != nil {
					b.done()
				}
				<-slots
			}()
			etag, err := s.uploadPart(ctx, k, id, n, b)
			if err != nil {
				cancel(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for len(parts) < n {
				parts = append(parts, completedPart{})
			}
			parts[n-1] = completedPart{PartNumber: n, ETag: etag}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		s.abortUpload(context.WithoutCancel(ctx), k, id)
		return err
	}
	if err := s.completeUpload(ctx, k, id, parts); err != nil {
		s.abortUpload(context.WithoutCancel(ctx), k, id)
		return err
	}
	return nil
}

func (s *Store) createUpload(ctx context.Context, k string) (string, error) {
	res, err := s.send(ctx, "CreateMultipartUpload", http.MethodPost, k, url.Values{"uploads": {""}}, nil)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var out struct {
		UploadID string `xml:"UploadId"`
	}
	if err := xml.NewDecoder(res.Body).Decode(&out); err != nil || out.UploadID == "" {
		return "", fmt.Errorf("start a multipart upload: no upload ID in the answer (%v)", err)
	}
	return out.UploadID, nil
}

func (s *Store) uploadPart(ctx context.Context, k, id string, n int, b *body) (string, error) {
	q := url.Values{"partNumber": {strconv.Itoa(n)}, "uploadId": {id}}
	res, err := s.send(ctx, "UploadPart", http.MethodPut, k, q, b)
	if err != nil {
		return "", err
	}
	res.Body.Close()
	etag := res.Header.Get("ETag")
	if etag == "" {
		return "", fmt.Errorf("upload part %d: no ETag in the answer", n)
	}
	return etag, nil
}

func (s *Store) completeUpload(ctx context.Context, k, id string, parts []completedPart) error {
	doc, err := xml.Marshal(struct {
		XMLName xml.Name        `xml:"CompleteMultipartUpload"`
		Parts   []completedPart `xml:"Part"`
	}{Parts: parts})
	if err != nil {
		return err
	}
	res, err := s.send(ctx, "CompleteMultipartUpload", http.MethodPost, k, url.Values{"uploadId": {id}}, bytesBody(doc))
	if err != nil {
		return err
	}
	defer res.Body.Close()
	// S3 may answer 200 and report a failure in the body.
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("complete the multipart upload: %w", err)
	}
	var e struct {
		XMLName xml.Name
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	if xml.Unmarshal(b, &e) == nil && e.XMLName.Local == "Error" {
		return errors.New("complete the multipart upload: " + e.Code + ": " + e.Message)
	}
	return nil
}

// abortUpload drops the parts of a failed upload; a failure to do so is not reported, since
// the upload has failed already and a bucket lifecycle rule cleans up after it.
func (s *Store) abortUpload(ctx context.Context, k, id string) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if res, err := s.send(ctx, "AbortMultipartUpload", http.MethodDelete, k, url.Values{"uploadId": {id}}, nil); err == nil {
		res.Body.Close()
	}
}
