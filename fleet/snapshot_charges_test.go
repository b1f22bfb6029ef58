package fleet

import (
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
)

// TestChargeBlocks checks that charges pending across several blocks are found by index and
// become GPUTime charges in Charges, after the ones there, in order.
func TestChargeBlocks(t *testing.T) {
	s := &Snapshot{Charges: []Charge{{Kind: Other, held: -1}, {Kind: Other, held: -2}}, reader: analyze.NewOwnerReader(nil)}
	b := &builder{snap: s, o: Options{Period: Period{Start: day1, End: day1.AddDate(0, 0, 1)}}, hostTags: map[string]gpucost.Owner{}}
	c := &cell{line: Line{LineResource: &LineResource{Owner: gpucost.Owner{Team: "ml"}}, start: day1.UnixNano(), end: day1.AddDate(0, 0, 1).UnixNano()}}
	sers := []*gpucost.Series{
		{GPU: gpucost.GPU{UUID: "GPU-1", Host: "a", Model: "NVIDIA H100 80GB HBM3"}, Labels: gpucost.Labels{"namespace": "x"}},
		{GPU: gpucost.GPU{UUID: "GPU-2", Host: "b", Model: "NVIDIA A100-SXM4-80GB"}},
	}
	cb := chargeBlocks{base: len(s.Charges)}
	const n = 2*chargeBlock + 17
	for k := range n {
		if i := cb.next(); i != 2+k {
			t.Fatalf("next() = %d after %d charges, want %d", i, k, 2+k)
		}
		pc := pendingCharge{ser: sers[k%2], held: int64(k), day: day1.Unix() / 86400}
		if k%2 == 0 {
			pc.cell = c
		}
		cb.add(pc)
	}
	for k := range n {
		cb.at(2 + k).used = int64(k) * 2
	}
	cb.flush(b, 5)
	if len(s.Charges) != 2+n || cap(s.Charges) < 2+n+5 || s.Charges[1].held != -2 {
		t.Fatalf("flush left %d charges (capacity %d), want %d with room for 5 more, the first two kept", len(s.Charges), cap(s.Charges), 2+n)
	}
	for k := range n {
		ch := s.Charges[2+k]
		if ch.Kind != GPUTime || ch.held != int64(k) || ch.used != int64(k)*2 || ch.Series != sers[k%2] || !ch.Start.Equal(day1) {
			t.Fatalf("Charges[%d] = %+v; want series %d's GPU time, held %d, used %d", 2+k, ch, k%2, k, 2*k)
		}
		if k%2 == 0 && (ch.Line != &c.line || ch.Source != SourceBill || ch.Owner.Team != "ml" || ch.Owner.Namespace != "x" || ch.Model != "H100-SXM") {
			t.Fatalf("Charges[%d] = %+v; want the line's, owned by team ml and namespace x, model H100-SXM", 2+k, ch)
		}
		if k%2 == 1 && (ch.Line != nil || ch.Model != "A100-80GB") {
			t.Fatalf("Charges[%d] = %+v; want no line (the catalog prices it), model A100-80GB", 2+k, ch)
		}
	}
	if cb.next() != len(s.Charges) || len(cb.blocks) != 0 {
		t.Errorf("after flush next() = %d with %d blocks, want %d and none", cb.next(), len(cb.blocks), len(s.Charges))
	}
}
