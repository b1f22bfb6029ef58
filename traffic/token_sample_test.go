package traffic

import (
	"strings"
	"testing"
)

// TestTokenSample: a request log keeps every request's token counts up to MaxTokenSample, and
// beyond it an evenly spaced sample of all of them, never more than MaxTokenSample.
func TestTokenSample(t *testing.T) {
	tr, err := Read(strings.NewReader("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.97,100,10\n2023-11-16 18:17:04.03,300,30\n"), "log.csv", Options{})
	if err != nil || len(tr.TokenSample) != 2 || tr.TokenSample[1] != [2]float64{300, 30} {
		t.Fatalf("Read(two requests) = %v, %v; want both kept", tr.TokenSample, err)
	}
	var big Trace
	n := 3*MaxTokenSample + 5
	for i := 1; i <= n; i++ {
		big.sampleTokens(float64(i), 0)
	}
	s := big.TokenSample
	if len(s) > MaxTokenSample || len(s) < MaxTokenSample/4 {
		t.Fatalf("%d requests kept %d; want between a quarter of and %d", n, len(s), MaxTokenSample)
	}
	stride := s[1][0] - s[0][0]
	for i, r := range s {
		if r[0] != stride*float64(i+1) {
			t.Fatalf("sample %d = request %v; want request %v (every %v-th)", i, r[0], stride*float64(i+1), stride)
		}
	}
	if last := s[len(s)-1][0]; float64(n)-last >= stride {
		t.Errorf("the sample ends at request %v of %d; want within one stride (%v) of the end", last, n, stride)
	}
}
