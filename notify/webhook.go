package notify

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Webhook headers. The signature is HMAC-SHA256 over "<timestamp>.<raw body>" keyed with the
// shared secret, written "sha256=<hex>" as GitHub does; signing the timestamp with the body
// lets a receiver refuse replays older than its tolerance, as Stripe and Standard Webhooks do.
const (
	HeaderSignature = "X-Gpucost-Signature"
	HeaderTimestamp = "X-Gpucost-Timestamp"
	HeaderKey       = "Idempotency-Key" // the Message's Key, so a receiver can drop repeats
)

// Webhook posts a Message as signed JSON to a URL.
type Webhook struct {
	URL     string
	Secret  string // HMAC-SHA256 key; required
	Client  *http.Client
	Timeout time.Duration    // per request; 10 s when zero
	Now     func() time.Time // time.Now when nil
}

var _ Target = (*Webhook)(nil)

// WebhookPayload is the JSON body a Webhook sends.
type WebhookPayload struct {
	Kind     string    `json:"kind"`
	Severity Severity  `json:"severity"`
	Subject  string    `json:"subject"`
	Text     string    `json:"text"`
	Fields   []Field   `json:"fields"`
	Link     string    `json:"link,omitempty"`
	At       time.Time `json:"at"`
	Key      string    `json:"key"`
}

// Send posts m as a WebhookPayload with signature, timestamp and idempotency headers.
func (w *Webhook) Send(ctx context.Context, m Message) error {
	if w.Secret == "" {
		return Permanent(fmt.Errorf("webhook %s: no signing secret", Redact(w.URL)))
	}
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	fields := m.Fields
	if fields == nil {
		fields = []Field{}
	}
	body, err := json.Marshal(WebhookPayload{
		Kind: m.Kind, Severity: severityOr(m.Severity), Subject: m.Subject, Text: m.Text,
		Fields: fields, Link: m.Link, At: m.At.UTC(), Key: m.Key,
	})
	if err != nil {
		return Permanent(fmt.Errorf("encode webhook payload: %w", err))
	}
	t := now()
	ts := strconv.FormatInt(t.Unix(), 10)
	hdr := http.Header{}
	hdr.Set("Content-Type", "application/json")
	hdr.Set("User-Agent", "gpucost-notify")
	hdr.Set(HeaderTimestamp, ts)
	hdr.Set(HeaderSignature, "sha256="+hex.EncodeToString(sign(w.Secret, ts, body)))
	if m.Key != "" {
		hdr.Set(HeaderKey, m.Key)
	}
	return post(ctx, w.Client, w.URL, w.Timeout, hdr, body, t, w.Secret)
}

func sign(secret, ts string, body []byte) []byte {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return mac.Sum(nil)
}

func severityOr(s Severity) Severity {
	if s == "" {
		return SeverityInfo
	}
	return s
}

// Errors Verify returns, for receivers to tell apart.
var (
	ErrNoSignature  = errors.New("webhook signature or timestamp header missing")
	ErrBadSignature = errors.New("webhook signature does not match")
	ErrStale        = errors.New("webhook timestamp outside tolerance")
)

// Verify checks a received webhook: the signature header must be HMAC-SHA256 of
// "<timestamp>.<body>" under secret, and the timestamp within tolerance of now either way.
// Receivers call it with the raw body, before decoding it. An empty secret verifies nothing:
// anyone can sign with it.
func Verify(secret string, header http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	if secret == "" {
		return fmt.Errorf("%w: no secret to check it with", ErrBadSignature)
	}
	ts, sig := header.Get(HeaderTimestamp), header.Get(HeaderSignature)
	if ts == "" || sig == "" {
		return ErrNoSignature
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: timestamp %q is not Unix seconds", ErrNoSignature, ts)
	}
	hexSig, ok := strings.CutPrefix(sig, "sha256=")
	if !ok {
		return fmt.Errorf("%w: want sha256=<hex>", ErrBadSignature)
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil || !hmac.Equal(got, sign(secret, ts, body)) {
		return ErrBadSignature
	}
	if d := now.Sub(time.Unix(unix, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("%w: %v off", ErrStale, d.Round(time.Second))
	}
	return nil
}
