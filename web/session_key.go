package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/gpucost/gpucost"
)

// SessionKeySetting is the store setting that holds the dashboard's session signing key.
const SessionKeySetting = "session_key"

// SessionKey returns the key the dashboard signs its session cookies with, kept in the store's
// settings so that every replica of the server accepts the others' sessions. The first server to
// start makes it; one that started at the same moment reads back whichever key was stored last.
func SessionKey(ctx context.Context, settings gpucost.SettingStore) ([]byte, error) {
	v, err := settings.Setting(ctx, SessionKeySetting, "")
	if err != nil {
		return nil, fmt.Errorf("read the session key: %w", err)
	}
	if v == "" {
		key := make([]byte, 32)
		rand.Read(key) // never fails (crypto/rand)
		if err := settings.SetSetting(ctx, SessionKeySetting, hex.EncodeToString(key)); err != nil {
			return nil, fmt.Errorf("store a new session key: %w", err)
		}
		if v, err = settings.Setting(ctx, SessionKeySetting, ""); err != nil {
			return nil, fmt.Errorf("read the session key: %w", err)
		}
	}
	key, err := hex.DecodeString(v)
	if err != nil || len(key) < 32 {
		return nil, fmt.Errorf("the store's %s setting is not a 32-byte hex key; delete it and restart to make a new one", SessionKeySetting)
	}
	return key, nil
}
