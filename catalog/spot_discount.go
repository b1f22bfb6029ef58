package catalog

// SpotDiscount returns the spot discount, in percent off on-demand, of the cheapest offers of
// gpu (of provider, when given) that have one; false when none has a spot price.
func (c *Catalog) SpotDiscount(gpu, provider string) (float64, bool, error) {
	rows, err := c.Cheapest(Query{GPU: gpu, Provider: provider})
	if err != nil {
		return 0, false, err
	}
	for _, r := range rows {
		if d, ok := r.SpotDiscount(); ok {
			return d, true, nil
		}
	}
	return 0, false, nil
}
