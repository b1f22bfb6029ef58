package cloudsource

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func TestDeliveries(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2026, 10, 5, h, 0, 0, 0, time.UTC) }
	objs := []gpucost.Object{
		{Key: "x/cur2/data/BILLING_PERIOD=2026-10/e1/cur2-00001.parquet", Modified: at(1)},
		{Key: "x/cur2/data/BILLING_PERIOD=2026-10/e2/cur2-00001.parquet", Modified: at(2)},
		{Key: "x/cur2/metadata/BILLING_PERIOD=2026-10/cur2-Manifest.json", Modified: at(2)},
		{Key: "x/cur2/metadata/BILLING_PERIOD=2026-09/cur2-Manifest.json", Modified: at(2)},
		{Key: "legacy/rep/20261001-20261101/rep-Manifest.json", Modified: at(1)},
		{Key: "legacy/rep/20261001-20261101/asm-1/rep-1.csv.gz", Modified: at(1)},
		{Key: "az/gpu/20261001-20261031/run-a/part_0_0001.csv", Modified: at(3)},
		{Key: "az/gpu/20261001-20261031/run-b/part_0_0001.csv", Modified: at(1)},
		{Key: "az/gpu/20261001-20261031/run-b/part_1_0001.csv", Modified: at(4)},
		{Key: "gcp/billing-2026-10.jsonl", Modified: at(1)},
		{Key: "gcp/billing-2026-11.jsonl", Modified: at(1)},
		{Key: "gcp/README.txt", Modified: at(1)},
	}
	var got []string
	for _, d := range Deliveries(objs) {
		var files []string
		for _, f := range d.Files {
			files = append(files, f.Key[strings.LastIndex(f.Key, "/")+1:])
		}
		got = append(got, d.Export+" "+d.Period+" "+d.Manifest+" "+strings.Join(files, ","))
	}
	want := []string{
		"az/gpu 20261001-20261031  part_0_0001.csv,part_1_0001.csv", // run-b: its newest file is the newest
		"gcp   billing-2026-10.jsonl,billing-2026-11.jsonl",
		"legacy/rep 20261001-20261101 legacy/rep/20261001-20261101/rep-Manifest.json ",
		"x/cur2 2026-09 x/cur2/metadata/BILLING_PERIOD=2026-09/cur2-Manifest.json ",
		"x/cur2 2026-10 x/cur2/metadata/BILLING_PERIOD=2026-10/cur2-Manifest.json ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Deliveries =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestLocate(t *testing.T) {
	for _, c := range []struct{ key, export, period string }{
		{"s3://b/x/cur2/data/BILLING_PERIOD=2026-10/e1/cur2-00001.parquet", "s3://b/x/cur2", "2026-10"},
		{"s3://b/x/cur2/metadata/BILLING_PERIOD=2026-10/cur2-Manifest.json", "s3://b/x/cur2", "2026-10"},
		{"azure://a/c/az/gpu/20261001-20261031/run-b", "azure://a/c/az/gpu", "20261001-20261031"},
		{"azure://a/c/az/gpu/20261001-20261031/run-b/part_0_0001.csv", "azure://a/c/az/gpu", "20261001-20261031"},
		{"gs://b/gcp/billing-2026-10.jsonl", "gs://b/gcp", ""},
		{"/home/me/bills/focus.csv", "/home/me/bills", ""},
	} {
		if e, p := locate(c.key); e != c.export || p != c.period {
			t.Errorf("locate(%q) = %q, %q; want %q, %q", c.key, e, p, c.export, c.period)
		}
	}
}

// FuzzDeliveries feeds listings of arbitrary keys: Deliveries never panics, names only listed
// objects, and puts no object in two deliveries.
func FuzzDeliveries(f *testing.F) {
	f.Add("x/cur2/metadata/BILLING_PERIOD=2026-10/cur2-Manifest.json\nx/cur2/data/BILLING_PERIOD=2026-10/e/cur2-00001.csv.gz\naz/e/20261001-20261031/r/part_0_0001.csv\ngcp/b.jsonl")
	f.Add("/metadata/BILLING_PERIOD=/-Manifest.json\n20261001-20261031/r/f.csv\n//\n.csv")
	f.Fuzz(func(t *testing.T, listing string) {
		var objs []gpucost.Object
		listed := map[string]bool{}
		for i, k := range strings.Split(listing, "\n") {
			objs = append(objs, gpucost.Object{Key: k, Size: int64(i), Modified: time.Unix(int64(i%3), 0)})
			listed[k] = true
		}
		seen := map[string]bool{}
		for _, d := range Deliveries(objs) {
			if d.Manifest != "" && !listed[d.Manifest] {
				t.Errorf("delivery %q names manifest %q, which is not listed", d.Key(), d.Manifest)
			}
			for _, o := range d.Files {
				if !listed[o.Key] || seen[o.Key] {
					t.Errorf("delivery %q has %q: listed %v, in another delivery %v", d.Key(), o.Key, listed[o.Key], seen[o.Key])
				}
				seen[o.Key] = true
			}
		}
	})
}
