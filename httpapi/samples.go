package httpapi

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry"
)

// Limits of one samples request beyond its bytes: a body within DefaultMaxDecoded can still
// hold millions of tiny samples, each of which costs hundreds of bytes once decoded.
const (
	// MaxSamplesPerRequest is the most samples one push may carry: ten times an agent's batch
	// (DefaultRemoteBatch, 5,000), so no agent comes near it.
	MaxSamplesPerRequest = 50_000

	// MaxSampleMemory is the memory, as sampleCost estimates it (about 700 bytes a sample and
	// 190 a label of 30 bytes), that the decoded samples of one push may hold: an agent's batch
	// of 5,000 samples with 60 labels each fits, as do 50,000 samples with 3 labels each.
	MaxSampleMemory = 64 << 20

	// MaxLabelsPerSample is the most labels one sample may carry: a Kubernetes pod's labels and
	// the collector's own rarely pass 50.
	MaxLabelsPerSample = 256
)

// bodyError is a request body the server refuses, with the status that says why.
type bodyError struct {
	status int
	msg    string
}

func (e *bodyError) Error() string { return e.msg }

// rateError is a request over its token's rate limit: 429, to retry after wait.
type rateError struct {
	msg  string
	wait time.Duration
}

func (e *rateError) Error() string { return e.msg }

// postSamples validates the samples of a batch as it decodes them, hands the valid ones to
// Ingest and says how many it kept; a sample that fails validation is skipped and named, the
// rest are kept. Decoding stops at the first limit passed (samples, their memory, the token's
// rate), when the client goes away or when the request has run for WriteTimeout.
func (s *Server) postSamples(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), WriteTimeout)
	defer cancel()
	tok, _ := TokenFrom(r.Context())
	quota := &ingestQuota{s: s, token: tok.ID}
	now := s.Now()
	resp := SamplesResponse{}
	var keep []gpucost.Sample
	n, err := s.readSamples(ctx, w, r, quota.reserve, func(i int, sj *SampleJSON) {
		smp := sj.Sample()
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
			return
		}
		keep = append(keep, smp)
	})
	quota.settle(n)
	if err != nil {
		var be *bodyError
		var re *rateError
		if errors.As(err, &re) {
			writeTooMany(w, re.wait, re.msg)
			return
		}
		if errors.As(err, &be) {
			writeError(w, be.status, gpucost.EInvalid, be.msg)
			return
		}
		s.writeErr(w, err, "read the samples")
		return
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

// readSamples decodes a samples request, JSON, gzip'd or not, within the size limits, calling
// each for every sample in order, and returns how many it decoded. reserve, when not nil, is
// called before the nth sample is decoded and stops decoding with its error.
func (s *Server) readSamples(ctx context.Context, w http.ResponseWriter, r *http.Request,
	reserve func(n int) error, each func(i int, s *SampleJSON)) (int, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, _ := mime.ParseMediaType(ct); mt != "application/json" {
			return 0, &bodyError{status: http.StatusUnsupportedMediaType, msg: fmt.Sprintf("Content-Type %q: send application/json", ct)}
		}
	}
	body := http.MaxBytesReader(w, r.Body, s.MaxBody)
	var in io.Reader = body
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(body)
		if err != nil {
			return 0, s.bodyErr(err, "read the gzip body")
		}
		defer zr.Close()
		in = &limitReader{r: zr, left: s.MaxDecoded}
	default:
		return 0, &bodyError{status: http.StatusUnsupportedMediaType, msg: fmt.Sprintf("Content-Encoding %q: send gzip or no encoding", enc)}
	}
	d := &sampleDecoder{ctx: ctx, dec: json.NewDecoder(in), limits: s.sampleLimits(), reserve: reserve, each: each}
	if err := d.decode(); err != nil {
		var be *bodyError
		var re *rateError
		if errors.As(err, &be) || errors.As(err, &re) {
			return d.n, err
		}
		if ctx.Err() != nil {
			return d.n, &bodyError{status: http.StatusRequestTimeout, msg: fmt.Sprintf(
				"decode the samples: the request was cancelled or ran past %v after %d samples; send smaller batches", WriteTimeout, d.n)}
		}
		return d.n, s.bodyErr(err, "decode the samples")
	}
	return d.n, nil
}

// bodyErr says why a body could not be read: too large (413) or malformed (400).
func (s *Server) bodyErr(err error, doing string) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return &bodyError{status: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf(
			"%s: the body is over the limit of %s as sent; send smaller batches", doing, mib(s.MaxBody))}
	}
	if errors.Is(err, errDecodedTooLarge) {
		return &bodyError{status: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf(
			"%s: the body is over the limit of %s once decompressed; send smaller batches", doing, mib(s.MaxDecoded))}
	}
	var le *limitError
	if errors.As(err, &le) {
		return &bodyError{status: http.StatusRequestEntityTooLarge, msg: doing + ": " + err.Error()}
	}
	return &bodyError{status: http.StatusBadRequest, msg: doing + ": " + err.Error()}
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
// nothing after it, within MaxSamplesPerRequest, MaxSampleMemory and MaxLabelsPerSample. Fields
// it does not know are ignored, so newer agents can send more.
func DecodeSamples(r io.Reader) (*SamplesRequest, error) {
	req := &SamplesRequest{Samples: []SampleJSON{}}
	d := &sampleDecoder{ctx: context.Background(), dec: json.NewDecoder(r), limits: defaultSampleLimits,
		each: func(_ int, s *SampleJSON) { req.Samples = append(req.Samples, *s) }}
	if err := d.decode(); err != nil {
		return nil, err
	}
	return req, nil
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
