package gpucost

import (
	"encoding/json"
	"testing"
	"time"
)

func TestDurationJSON(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{90 * time.Minute, "5400"},
		{1500 * time.Millisecond, "1.5"},
		{0, "0"},
		{-2 * time.Second, "-2"},
	} {
		b, err := json.Marshal(Duration(c.d))
		if err != nil || string(b) != c.want {
			t.Errorf("json.Marshal(Duration(%v)) = %s, %v; want %s", c.d, b, err, c.want)
		}
		var back Duration
		if err := json.Unmarshal(b, &back); err != nil || back.D() != c.d {
			t.Errorf("json.Unmarshal(%s) = %v, %v; want %v", b, back, err, c.d)
		}
	}
	var d Duration
	if err := json.Unmarshal([]byte(`"5m"`), &d); ErrorCode(err) != EInvalid {
		t.Errorf(`json.Unmarshal("5m") = %v, want an EInvalid asking for seconds`, err)
	}
}
