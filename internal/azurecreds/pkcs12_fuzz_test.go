package azurecreds

import (
	"os"
	"testing"
)

// FuzzPBES2PEM: whatever a PKCS#12 file holds, reading it returns blocks or an error, never a
// panic.
func FuzzPBES2PEM(f *testing.F) {
	for _, name := range []string{"testdata/sp-aes.p12", "testdata/sp-aes128-sha1mac.p12", "testdata/sp-nopass.p12", "testdata/sp-legacy.p12"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		blocks, err := pbes2PEM(b, "test-pfx-password")
		if err == nil && len(b) < 16 {
			t.Errorf("pbes2PEM(%x) = %d blocks, no error; want a refusal of so short a file", b, len(blocks))
		}
	})
}
