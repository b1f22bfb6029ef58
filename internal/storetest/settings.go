package storetest

import (
	"context"

	"github.com/gpucost/gpucost"
)

// Settings is a gpucost.SettingStore in a map, for tests of what reads and keeps settings.
type Settings map[string]string

var _ gpucost.SettingStore = Settings(nil)

// Setting returns the value of key, or def if it is not set.
func (s Settings) Setting(_ context.Context, key, def string) (string, error) {
	if v, ok := s[key]; ok {
		return v, nil
	}
	return def, nil
}

// SetSetting sets key to value.
func (s Settings) SetSetting(_ context.Context, key, value string) error {
	s[key] = value
	return nil
}
