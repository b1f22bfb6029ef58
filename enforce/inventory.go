package enforce

import (
	"context"
	"fmt"
	"slices"
)

// ListResources lists the resources of every inventory, in order. When an inventory cannot be
// listed, skip (if set) is told and the others are still listed; without skip ListResources
// stops there with the error.
func ListResources(ctx context.Context, invs []Inventory, skip func(error)) ([]Resource, error) {
	var out []Resource
	for _, inv := range invs {
		rs, err := inv.Resources(ctx)
		if err != nil {
			if skip == nil {
				return out, fmt.Errorf("list resources: %w", err)
			}
			skip(err)
			continue
		}
		out = append(out, rs...)
	}
	return out, nil
}

// Triggered reports whether any policy of the plan triggered.
func (p Plan) Triggered() bool {
	return slices.ContainsFunc(p.Policies, func(r PolicyResult) bool { return r.Triggered })
}
