package httpapi

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry"
)

// bodyError is a request body the server refuses, with the status that says why.
type bodyError struct {
	status int
	msg    string
}

func (e *bodyError) Error() string { return e.msg }

// postSamples validates the samples of a batch, hands the valid ones to Ingest and says how
// many it kept; a sample that fails validation is skipped and named, the rest are kept.
func (s *Server) postSamples(w http.ResponseWriter, r *http.Request) {
	req, err := s.readSamples(w, r)
	if err != nil {
		var be *bodyError
		if errors.As(err, &be) {
			writeError(w, be.status, gpucost.EInvalid, be.msg)
			return
		}
		s.writeErr(w, err, "read the samples")
		return
	}
	now := s.Now()
	resp := SamplesResponse{}
	keep := make([]gpucost.Sample, 0, len(req.Samples))
	for i := range req.Samples {
		smp := req.Samples[i].Sample()
		if err := telemetry.Validate(smp, now); err != nil {
			resp.Skipped++
			if len(resp.Skips) < MaxSkipsReported {
				sk := SkippedSample{Index: i, GPU: smp.GPU.UUID, Reason: err.Error()}
				var se *telemetry.SampleError
				if errors.As(err, &se) {
					sk.Field, sk.Reason = se.Field, se.Reason
				}
				resp.Skips = append(resp.Skips, sk)
			}
			continue
		}
		keep = append(keep, smp)
	}
	if len(keep) > 0 {
		if err := s.Ingest.Add(r.Context(), keep...); err != nil {
			s.Log.Error("ingest samples", "err", err, "samples", len(keep))
			s.ingested("refused", len(keep))
			s.ingested("skipped", resp.Skipped)
			writeError(w, http.StatusServiceUnavailable, gpucost.EUnavailable, "the samples could not be stored now; retry later")
			return
		}
	}
	resp.Accepted = len(keep)
	s.ingested("accepted", resp.Accepted)
	s.ingested("skipped", resp.Skipped)
	writeJSON(w, http.StatusOK, resp)
}

// readSamples decodes a samples request: JSON, gzip'd or not, within the size limits.
func (s *Server) readSamples(w http.ResponseWriter, r *http.Request) (*SamplesRequest, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, _ := mime.ParseMediaType(ct); mt != "application/json" {
			return nil, &bodyError{http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type %q: send application/json", ct)}
		}
	}
	body := http.MaxBytesReader(w, r.Body, s.MaxBody)
	var in io.Reader = body
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(body)
		if err != nil {
			return nil, s.bodyErr(err, "read the gzip body")
		}
		defer zr.Close()
		in = &limitReader{r: zr, left: s.MaxDecoded}
	default:
		return nil, &bodyError{http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Encoding %q: send gzip or no encoding", enc)}
	}
	req, err := DecodeSamples(in)
	if err != nil {
		return nil, s.bodyErr(err, "decode the samples")
	}
	return req, nil
}

// bodyErr says why a body could not be read: too large (413) or malformed (400).
func (s *Server) bodyErr(err error, doing string) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return &bodyError{http.StatusRequestEntityTooLarge, fmt.Sprintf(
			"%s: the body is over the limit of %s as sent; send smaller batches", doing, mib(s.MaxBody))}
	}
	if errors.Is(err, errDecodedTooLarge) {
		return &bodyError{http.StatusRequestEntityTooLarge, fmt.Sprintf(
			"%s: the body is over the limit of %s once decompressed; send smaller batches", doing, mib(s.MaxDecoded))}
	}
	return &bodyError{http.StatusBadRequest, doing + ": " + err.Error()}
}

// mib writes a size limit for people.
func mib(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

var errDecodedTooLarge = errors.New("decompressed body over the limit")

// limitReader fails with errDecodedTooLarge past its limit, where io.LimitReader would end
// quietly and a truncated body would read as malformed JSON.
type limitReader struct {
	r    io.Reader
	left int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var one [1]byte
		if n, _ := l.r.Read(one[:]); n > 0 {
			return 0, errDecodedTooLarge
		}
		return l.r.Read(p)
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// DecodeSamples reads one SamplesRequest from r: a JSON object with a "samples" array and
// nothing after it. Fields it does not know are ignored, so newer agents can send more.
func DecodeSamples(r io.Reader) (*SamplesRequest, error) {
	dec := json.NewDecoder(r)
	var raw struct {
		Samples *[]SampleJSON `json:"samples"`
	}
	if err := dec.Decode(&raw); err != nil {
		return nil, jsonError(err)
	}
	if raw.Samples == nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, `the body has no "samples" array: send {"samples": [...]}`)
	}
	if tok, err := dec.Token(); err != io.EOF {
		if err != nil {
			return nil, jsonError(err)
		}
		return nil, gpucost.Errorf(gpucost.EInvalid, "unexpected %v after the JSON object at byte %d", tok, dec.InputOffset())
	}
	return &SamplesRequest{Samples: *raw.Samples}, nil
}

// jsonError names where and why JSON failed to decode.
func jsonError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return gpucost.Errorf(gpucost.EInvalid, "the body is empty: send a JSON object {\"samples\": [...]}")
	case errors.As(err, &syn):
		return gpucost.Errorf(gpucost.EInvalid, "malformed JSON at byte %d: %w", syn.Offset, err)
	case errors.As(err, &typ):
		return gpucost.Errorf(gpucost.EInvalid, "field %s at byte %d: a JSON %s cannot be a %s", typ.Field, typ.Offset, typ.Value, typ.Type)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return gpucost.Errorf(gpucost.EInvalid, "the JSON ends early: %w", err)
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) || errors.Is(err, errDecodedTooLarge) {
		return err
	}
	return gpucost.Errorf(gpucost.EInvalid, "malformed body: %w", err)
}
