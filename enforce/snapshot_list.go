package enforce

import "context"

// List lists the resources of invs into s.Resources (ListResources) and returns the note a
// report prints when there is no inventory to list, so no policy can act on a resource.
func (s *Snapshot) List(ctx context.Context, invs []Inventory) ([]string, error) {
	var err error
	if s.Resources, err = ListResources(ctx, invs, nil); err != nil {
		return nil, err
	}
	if len(invs) == 0 {
		return []string{"No inventory: give --aws-region, --gce-project, --azure-subscription or --kube-server for policies to act on resources."}, nil
	}
	return nil, nil
}
