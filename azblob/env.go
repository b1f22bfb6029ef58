package azblob

import (
	"cmp"
	"net/url"
	"strings"

	"github.com/gpucost/gpucost"
)

// ConfigFromEnv reads an azure://ACCOUNT/CONTAINER/PREFIX or
// https://ACCOUNT.blob.core.windows.net/CONTAINER/PREFIX address and the credentials through
// getenv: AZURE_STORAGE_CONNECTION_STRING (its AccountKey or SharedAccessSignature, and its
// BlobEndpoint, which also reaches Azurite), else AZURE_STORAGE_KEY or AZURE_STORAGE_SAS_TOKEN.
// It returns the container's Config and the prefix. An address without an account or a
// container is an EInvalid error.
func ConfigFromEnv(addr string, getenv func(string) string) (Config, string, error) {
	var cfg Config
	var rest string
	switch {
	case strings.HasPrefix(addr, "azure://"):
		cfg.Account, rest, _ = strings.Cut(strings.TrimPrefix(addr, "azure://"), "/")
	case strings.HasPrefix(addr, "https://") || strings.HasPrefix(addr, "http://"):
		u, err := url.Parse(addr)
		if err != nil || u.Host == "" {
			return Config{}, "", gpucost.Errorf(gpucost.EInvalid, "Azure blob address %q is not a URL such as https://ACCOUNT.blob.core.windows.net/CONTAINER/PREFIX", addr)
		}
		cfg.Account, _, _ = strings.Cut(u.Host, ".")
		cfg.Endpoint = u.Scheme + "://" + u.Host
		rest = strings.TrimPrefix(u.Path, "/")
	default:
		return Config{}, "", gpucost.Errorf(gpucost.EInvalid, "Azure blob address %q: use azure://ACCOUNT/CONTAINER/PREFIX or https://ACCOUNT.blob.core.windows.net/CONTAINER/PREFIX", addr)
	}
	var prefix string
	cfg.Container, prefix, _ = strings.Cut(rest, "/")
	if cfg.Account == "" || cfg.Container == "" {
		return Config{}, "", gpucost.Errorf(gpucost.EInvalid, "Azure blob address %q names no account or no container; use azure://ACCOUNT/CONTAINER/PREFIX", addr)
	}
	if cs := getenv("AZURE_STORAGE_CONNECTION_STRING"); cs != "" {
		if err := cfg.connectionString(cs); err != nil {
			return Config{}, "", err
		}
	}
	if cfg.Key == "" && cfg.SAS == "" {
		cfg.Key, cfg.SAS = getenv("AZURE_STORAGE_KEY"), getenv("AZURE_STORAGE_SAS_TOKEN")
	}
	if cfg.Key != "" && cfg.SAS != "" {
		cfg.Key = "" // a SAS token names exactly what it grants; it wins over the key
	}
	return cfg, prefix, nil
}

// connectionString reads the settings of an Azure Storage connection string
// (AccountName=…;AccountKey=…;BlobEndpoint=…) into cfg. A connection string for another
// account than the address names is refused.
func (cfg *Config) connectionString(cs string) error {
	set := map[string]string{}
	for part := range strings.SplitSeq(cs, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if ok {
			set[strings.ToLower(k)] = v
		}
	}
	if name := set["accountname"]; name != "" && name != cfg.Account {
		return gpucost.Errorf(gpucost.EInvalid, "AZURE_STORAGE_CONNECTION_STRING is for account %s, not %s; set the connection string of %s", name, cfg.Account, cfg.Account)
	}
	cfg.Key, cfg.SAS = set["accountkey"], set["sharedaccesssignature"]
	if ep := set["blobendpoint"]; ep != "" {
		cfg.Endpoint = ep
	} else if suffix := set["endpointsuffix"]; suffix != "" {
		scheme := cmp.Or(set["defaultendpointsprotocol"], "https")
		cfg.Endpoint = scheme + "://" + cfg.Account + ".blob." + suffix
	}
	return nil
}
