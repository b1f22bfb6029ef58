package readerr

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

func TestCell(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name  string
		value string
		cause error
		want  string
	}{
		{"plain", "n/a", nil, `bill.csv:3: column 7 (Cost): "n/a" is not a decimal amount; fix it`},
		{"cause", "{", errors.New("ends early"), `bill.csv:3: column 7 (Cost): "{" is not a decimal amount (ends early); fix it`},
		{"clipped", long, nil, `bill.csv:3: column 7 (Cost): "` + long[:77] + `..." is not a decimal amount; fix it`},
	}
	for _, tt := range tests {
		err := Cell("bill.csv:3", Column(7, "Cost"), tt.value, "a decimal amount", tt.cause, "fix it")
		if err.Error() != tt.want {
			t.Errorf("%s: Cell(…) = %q, want %q", tt.name, err, tt.want)
		}
		if gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("%s: Cell(…) code = %q, want %q", tt.name, gpucost.ErrorCode(err), gpucost.EInvalid)
		}
	}
}

func TestMissingColumns(t *testing.T) {
	m := &Missing{Dialect: "EA", Lead: "EA cost details file lacks required column(s)", Columns: []string{"Date", "Cost"}}
	err := MissingColumns("read x.csv: ", m, "export all columns")
	want := "read x.csv: EA cost details file lacks required column(s) Date, Cost; export all columns"
	if err.Error() != want {
		t.Errorf("MissingColumns(…) = %q, want %q", err, want)
	}
	var got *Missing
	if !errors.As(err, &got) || got.Dialect != "EA" {
		t.Errorf("errors.As(MissingColumns(…), *Missing) = %v, want dialect EA", got)
	}
	if gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("MissingColumns(…) code = %q, want %q", gpucost.ErrorCode(err), gpucost.EInvalid)
	}
}

func TestShown(t *testing.T) {
	if got := Shown([]string{"a", "b", "c", "d", "e", "f", "g"}); len(got) != 6 {
		t.Errorf("Shown(7 names) = %q, want 6", got)
	}
	if got := Shown([]string{"a"}); len(got) != 1 {
		t.Errorf("Shown(1 name) = %q, want 1", got)
	}
}

func TestColumn(t *testing.T) {
	tests := []struct {
		n    int
		name string
		want string
	}{
		{7, "BilledCost", "column 7 (BilledCost)"},
		{0, "service.description", "column service.description"},
		{3, "", "column 3"},
	}
	for _, tt := range tests {
		if got := Column(tt.n, tt.name); got != tt.want {
			t.Errorf("Column(%d, %q) = %q, want %q", tt.n, tt.name, got, tt.want)
		}
	}
}
