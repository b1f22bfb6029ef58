package refresh

import (
	"context"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/spotrisk"
)

// KeepSpotPrices adds the spot prices of offers, as Fetch read them, to the price history kept
// in st (spotrisk.SettingPriceHistory) that report spot's 30-day trend reads, and returns how
// many zones' prices it added. A stored history that cannot be read starts again.
func KeepSpotPrices(ctx context.Context, st gpucost.SettingStore, offers []gpucost.Offer) (int, error) {
	s, err := st.Setting(ctx, spotrisk.SettingPriceHistory, "")
	if err != nil {
		return 0, err
	}
	h, err := spotrisk.DecodePriceHistory(s)
	if err != nil {
		h, _ = spotrisk.DecodePriceHistory("")
	}
	n := h.Add(offers)
	if n == 0 {
		return 0, nil
	}
	doc, err := h.Encode()
	if err != nil {
		return 0, err
	}
	return n, st.SetSetting(ctx, spotrisk.SettingPriceHistory, doc)
}
