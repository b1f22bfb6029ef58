package planfile

import (
	"strings"
	"testing"

	"github.com/gpucost/gpucost/traffic"
)

// TestTokenService takes a replica's service time from a request log's token counts, and
// refuses a trace that counts no tokens and a profile given beside the rates.
func TestTokenService(t *testing.T) {
	tr, err := ReadTrace(write(t, "log.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n"+
		"2024-05-10 00:00:00,1000,100\n2024-05-10 00:00:01,2000,200\n2024-05-10 00:00:02,3000,300\n"), TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bs, tp, err := TokenService(tr, TokenModel{PrefillRate: 10000, DecodeRate: 100, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	// 2,000 input tokens at 10,000/s and 200 output at 100/s: 2.2 s a request on average.
	if tp == nil || bs.Batch != 1 || bs.S.Seconds() != 2.2 {
		t.Errorf("TokenService(3 requests) = %+v, %v; want 2.2s a request and a token plan", bs, tp)
	}
	if want := "Token model: 10000 prefill and 100 decode tokens/s per replica shared by 1 sequence; the trace's 3 requests average 2000 input and 200 output tokens: 2.2s a request"; !strings.HasPrefix(bs.Note, want) {
		t.Errorf("TokenService note = %q; want it to begin %q", bs.Note, want)
	}
	_, _, err = TokenService(nil, TokenModel{})
	wantInvalid(t, "TokenService(no trace)", err, "--service-model tokens needs --trace")
	_, _, err = TokenService(&traffic.Trace{Name: "rates.csv"}, TokenModel{})
	wantInvalid(t, "TokenService(no tokens)", err, "trace rates.csv has no input and output token columns")
	_, _, err = TokenService(tr, TokenModel{PrefillRate: 1, Profile: "p.csv"})
	wantInvalid(t, "TokenService(profile and rates)", err, "give --token-profile or --prefill-rate and --decode-rate, not both")
}
