package web

import (
	"bytes"
	"context"
	"testing"
)

// sessionKeySettings is a SettingStore in a map.
type sessionKeySettings map[string]string

func (s sessionKeySettings) Setting(_ context.Context, key, def string) (string, error) {
	if v, ok := s[key]; ok {
		return v, nil
	}
	return def, nil
}

func (s sessionKeySettings) SetSetting(_ context.Context, key, value string) error {
	s[key] = value
	return nil
}

func TestSessionKey(t *testing.T) {
	ctx := context.Background()
	s := sessionKeySettings{}
	first, err := SessionKey(ctx, s)
	if err != nil || len(first) != 32 {
		t.Fatalf("SessionKey(empty store) = %x, %v; want a new 32-byte key", first, err)
	}
	again, err := SessionKey(ctx, s)
	if err != nil || !bytes.Equal(first, again) {
		t.Errorf("SessionKey(store with a key) = %x, %v; want the stored key %x", again, err, first)
	}
	for _, bad := range []string{"not hex", "abcd"} {
		if k, err := SessionKey(ctx, sessionKeySettings{SessionKeySetting: bad}); err == nil {
			t.Errorf("SessionKey(setting %q) = %x, want an error naming the setting", bad, k)
		}
	}
}
