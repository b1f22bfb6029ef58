package demo_test

import (
	"testing"

	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/demo"
)

// TestBudgets: the demo's budgets load as a budget file, one for each of its teams and the AWS
// total.
func TestBudgets(t *testing.T) {
	bs, err := budget.Load("demo budgets", []byte(demo.Budgets))
	if err != nil || len(bs) != 4 {
		t.Fatalf("budget.Load(demo.Budgets) = %d budgets, %v; want 4", len(bs), err)
	}
	if bs[0].Name != "research-gpus" || bs[3].Name != "all-aws" {
		t.Errorf("demo.Budgets = %s … %s; want research-gpus first and all-aws last", bs[0].Name, bs[3].Name)
	}
}
