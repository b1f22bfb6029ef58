package storetest

import (
	"context"
	"os"
	"testing"
)

// RunSettings runs the cases of gpucost.SettingStore: a default until set, then the value set
// last.
func RunSettings(t *testing.T, open Open) {
	ctx := context.Background()
	db := open(t)
	if v, err := db.Setting(ctx, "idle_below", "def"); err != nil || v != "def" {
		t.Fatalf("Setting(unset) = %q, %v; want the default", v, err)
	}
	for _, v := range []string{"5", "7.5", ""} {
		if err := db.SetSetting(ctx, "idle_below", v); err != nil {
			t.Fatalf("SetSetting(%q) = %v", v, err)
		}
		if got, err := db.Setting(ctx, "idle_below", "def"); err != nil || got != v {
			t.Errorf("Setting after SetSetting(%q) = %q, %v", v, got, err)
		}
	}
	if v, err := db.Setting(ctx, "other", "x"); err != nil || v != "x" {
		t.Errorf("Setting(another key) = %q, %v; want its default", v, err)
	}
}

// testHandle checks what every store says of itself: a name for messages, a file that exists
// if it names one, and an answer to Ping.
func testHandle(t *testing.T, open Open) {
	db := open(t)
	if db.Name() == "" {
		t.Error("Name() is empty; messages need it")
	}
	if f := db.File(); f != "" {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("File() = %q, which does not exist: %v", f, err)
		}
	}
	if err := db.Ping(context.Background()); err != nil {
		t.Errorf("Ping() = %v", err)
	}
}
