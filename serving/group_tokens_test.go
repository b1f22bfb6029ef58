package serving

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// TestGroupTokens reads vLLM's token counters by group from a server that answers the two
// queries it expects, and refuses an unknown server.
func TestGroupTokens(t *testing.T) {
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	to := from.Add(30 * 24 * time.Hour)
	var asked []string
	prom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.FormValue("query")
		asked = append(asked, q)
		v := "0"
		switch {
		case strings.Contains(q, "vllm:prompt_tokens_total"):
			v = "2000000"
		case strings.Contains(q, "vllm:generation_tokens_total"):
			v = "500000"
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"namespace":"chat"},"value":[1764547200,"` + v + `"]}]}}`))
	}))
	defer prom.Close()
	got, _, err := GroupTokens{Prometheus: prom.URL, Server: "vllm"}.Read(context.Background(), "namespace", from, to)
	if err != nil || !reflect.DeepEqual(got, map[string]Tokens{"chat": {2e6, 5e5}}) {
		t.Errorf("Read(vllm) = %v, %v; want chat 2M input, 0.5M output", got, err)
	}
	want := "sum by (namespace) (increase(vllm:prompt_tokens_total[2592000s]))"
	if len(asked) != 2 || asked[0] != want {
		t.Errorf("queries %q; want %q first", asked, want)
	}
	if _, _, err := (GroupTokens{Prometheus: prom.URL, Server: "ollama"}).Read(context.Background(), "namespace", from, to); gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "tgi, triton, vllm") {
		t.Errorf("Read(ollama) = %v; want the servers listed", err)
	}
	if in, out, _ := (GroupTokens{Server: "triton"}).Queries("team", from, to); !strings.Contains(in, "nv_llm_input_token_len_sum") || !strings.Contains(out, "nv_llm_output_token_len_sum") {
		t.Errorf("Triton queries %q, %q", in, out)
	}
}
