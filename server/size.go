package server

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseSize parses a size in bytes as serve's --max-bill-size gives it: 2GiB, 512MiB, 100MB,
// 4096. Binary (KiB…TiB) and decimal (KB…TB) units are both taken; a size is at least one byte
// and at most 1 PiB.
func ParseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		n      int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range units {
		if n, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(n), u.n
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v >= 1) || v*float64(mult) > 1<<50 {
		return 0, fmt.Errorf("use a size such as 2GiB, 500MiB or 100MB")
	}
	return int64(v * float64(mult)), nil
}
