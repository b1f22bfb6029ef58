//go:build !cgo

package nvml

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestNewWithoutCgo(t *testing.T) {
	_, err := New()
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "built without cgo") {
		t.Errorf("New() = %v, want an error wrapping ErrUnavailable that says the build has no cgo", err)
	}
	if _, err := (&Collector{}).Collect(context.Background()); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Collect = %v", err)
	}
}
