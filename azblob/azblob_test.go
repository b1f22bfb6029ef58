package azblob_test

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/azblob"
	"github.com/gpucost/gpucost/azblob/azblobtest"
)

// TestAzurite puts, lists and gets blobs, names that need escaping among them, with Shared Key
// signatures that Azurite checks, and refuses a wrong key.
func TestAzurite(t *testing.T) {
	ctx := context.Background()
	endpoint := azblobtest.Start(t)
	c := azblobtest.Container(t, endpoint, "exports")
	blobs := map[string]string{
		"costs/gpu/20261001-20261031/run 1/part_0_0001.csv": "a,b\n1,2\n",
		"costs/gpu/20261001-20261031/run=2/ünïcode&co.csv":  "x\n",
		"other/file.csv": "y\n",
	}
	for name, data := range blobs {
		if err := c.Put(ctx, name, []byte(data)); err != nil {
			t.Fatalf("Put(%q) = %v", name, err)
		}
	}
	got, err := c.List(ctx, "costs/")
	if err != nil || len(got) != 2 {
		t.Fatalf("List(costs/) = %v, %v; want the 2 blobs under costs/", got, err)
	}
	for _, o := range got {
		if o.Size != int64(len(blobs[o.Key])) || o.Modified.IsZero() {
			t.Errorf("List(costs/): %s has size %d, modified %v; want %d and a time", o.Key, o.Size, o.Modified, len(blobs[o.Key]))
		}
		r, err := c.Get(ctx, o.Key)
		if err != nil {
			t.Fatalf("Get(%q) = %v", o.Key, err)
		}
		data, _ := io.ReadAll(r)
		r.Close()
		if string(data) != blobs[o.Key] {
			t.Errorf("Get(%q) = %q, want %q", o.Key, data, blobs[o.Key])
		}
	}
	if _, err := c.Get(ctx, "costs/none.csv"); gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("Get(missing) = %v, want an %s error", err, gpucost.ENotFound)
	}
	bad, _ := azblob.New(azblob.Config{Account: azblobtest.Account, Container: "exports", Endpoint: endpoint,
		Key: "d3Jvbmcga2V5IG9mIHRoZSByaWdodCBsZW5ndGggLi4uLi4uLi4uLi4uLi4uLi4uLi4uLi4uLi4uLi4uLi4uLi4uLi4="})
	if _, err := bad.List(ctx, ""); gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "AZURE_STORAGE_KEY") {
		t.Errorf("List with a wrong key = %v, want an %s error naming AZURE_STORAGE_KEY", err, gpucost.EInvalid)
	}
}

func TestConfigFromEnv(t *testing.T) {
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	for _, c := range []struct {
		name, addr string
		vars       map[string]string
		want       azblob.Config
		prefix     string
	}{
		{"azure URL with key", "azure://acct/bills/exports/gpu", map[string]string{"AZURE_STORAGE_KEY": "a2V5"},
			azblob.Config{Account: "acct", Container: "bills", Key: "a2V5"}, "exports/gpu"},
		{"blob URL with SAS", "https://acct.blob.core.windows.net/bills/x/", map[string]string{"AZURE_STORAGE_SAS_TOKEN": "?sv=1&sig=s"},
			azblob.Config{Account: "acct", Container: "bills", Endpoint: "https://acct.blob.core.windows.net", SAS: "?sv=1&sig=s"}, "x/"},
		{"connection string", "azure://devstoreaccount1/bills",
			map[string]string{"AZURE_STORAGE_CONNECTION_STRING": "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=a2V5;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;"},
			azblob.Config{Account: "devstoreaccount1", Container: "bills", Endpoint: "http://127.0.0.1:10000/devstoreaccount1", Key: "a2V5"}, ""},
	} {
		got, prefix, err := azblob.ConfigFromEnv(c.addr, env(c.vars))
		if err != nil || got != c.want || prefix != c.prefix {
			t.Errorf("%s: ConfigFromEnv(%q) = %+v, %q, %v; want %+v, %q", c.name, c.addr, got, prefix, err, c.want, c.prefix)
		}
	}
	for _, addr := range []string{"azure://acct", "azure:///bills", "s3://b/p"} {
		if _, _, err := azblob.ConfigFromEnv(addr, env(nil)); gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("ConfigFromEnv(%q) = %v, want an %s error", addr, err, gpucost.EInvalid)
		}
	}
}

// TestSASNotInErrors checks that an unreachable account's error does not carry the SAS token,
// which the server shows in its API and logs.
func TestSASNotInErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, err := azblob.New(azblob.Config{Account: "acct", Container: "costs", Endpoint: "http://" + addr + "/acct", SAS: "sv=2022-11-02&sig=SECRETSIG"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.List(context.Background(), "exports/")
	if gpucost.ErrorCode(err) != gpucost.EUnavailable || strings.Contains(err.Error(), "SECRETSIG") {
		t.Errorf("List(unreachable) = %v; want an %s error without the SAS signature", err, gpucost.EUnavailable)
	}
}
