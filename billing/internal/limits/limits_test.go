package limits

import (
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

func TestTooLongMessage(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    TooLong
		want []string
	}{
		{"CSV field", TooLong{Line: 2, Column: 21, Name: "ResourceId", Limit: MaxField},
			[]string{"read X bill.csv:2: column 21 (ResourceId): a value longer than 64 KiB", "export it again"}},
		{"JSON line", TooLong{Line: 7, Column: 1048577, Name: "labels", Byte: true, Limit: MaxLine, Record: true},
			[]string{"read X bill.csv:7: column labels at byte 1048577: the row passes 1 MiB here"}},
		{"Parquet value", TooLong{Line: 401, Row: true, Column: 8, Name: "ChargeDescription", Limit: MaxField},
			[]string{"read X bill.csv: row 401, column 8 (ChargeDescription): a value longer than 64 KiB"}},
		{"Parquet page", TooLong{Line: 1, Row: true, Column: 3, Name: "Tags", Page: true, Limit: MaxPage},
			[]string{"row 1, column 3 (Tags): a Parquet page larger than 16 MiB uncompressed"}},
		{"statistics", TooLong{Limit: MaxField}, []string{"the Parquet metadata (a column's statistics): a value longer than 64 KiB"}},
		{"footer", TooLong{Footer: true, Limit: MaxFooter}, []string{"the Parquet metadata is larger than 8 MiB", "export it again"}},
	} {
		err := Invalid("read X bill.csv", &tc.e)
		if gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("%s: Invalid(…) code %q, want %q", tc.name, gpucost.ErrorCode(err), gpucost.EInvalid)
		}
		for _, w := range append(tc.want, "read X bill.csv") {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: Invalid(…) = %q, want it to say %q", tc.name, err, w)
			}
		}
	}
}
