package catalog

import (
	"context"

	"github.com/gpucost/gpucost"
)

// StoredSpotAdvisor returns the advisor data kept in st (SettingSpotAdvisor); nil when none
// was imported.
func StoredSpotAdvisor(ctx context.Context, st gpucost.SettingStore) (*SpotAdvisor, error) {
	s, err := st.Setting(ctx, SettingSpotAdvisor, "")
	if err != nil {
		return nil, err
	}
	return DecodeSpotAdvisor(s)
}

// KeepSpotAdvisor keeps a in st for report spot and --interruption-rate auto, replacing the
// data imported before.
func KeepSpotAdvisor(ctx context.Context, st gpucost.SettingStore, a *SpotAdvisor) error {
	doc, err := a.Encode()
	if err != nil {
		return err
	}
	return st.SetSetting(ctx, SettingSpotAdvisor, doc)
}
