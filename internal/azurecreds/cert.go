package azurecreds

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"golang.org/x/crypto/pkcs12"

	"github.com/gpucost/gpucost"
)

// assertionLife is how long a client assertion is valid: Microsoft's certificate credentials
// ask for an expiry 5 to 10 minutes after nbf.
const assertionLife = 10 * 60

// certificate is the client credentials grant with a service principal's certificate:
// AZURE_CLIENT_CERTIFICATE_PATH names a PEM file (the certificate and its unencrypted private
// key) or a PKCS#12 file (AZURE_CLIENT_CERTIFICATE_PASSWORD opens it), whose key signs the
// client assertion.
func (c *Chain) certificate(ctx context.Context) (token, error) {
	path := c.getenv("AZURE_CLIENT_CERTIFICATE_PATH")
	if path == "" {
		return token{}, errNotSet
	}
	tenant, id := c.getenv("AZURE_TENANT_ID"), c.getenv("AZURE_CLIENT_ID")
	if tenant == "" || id == "" {
		return token{}, gpucost.Errorf(gpucost.EInvalid, "AZURE_CLIENT_CERTIFICATE_PATH needs AZURE_TENANT_ID and AZURE_CLIENT_ID too")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return token{}, gpucost.Errorf(gpucost.EInvalid, "read AZURE_CLIENT_CERTIFICATE_PATH: %w", err)
	}
	cert, err := readCertificate(b, c.getenv("AZURE_CLIENT_CERTIFICATE_PASSWORD"))
	if err != nil {
		return token{}, gpucost.Errorf(gpucost.EInvalid, "AZURE_CLIENT_CERTIFICATE_PATH %s: %w", path, err)
	}
	chain := strings.EqualFold(c.getenv("AZURE_CLIENT_SEND_CERTIFICATE_CHAIN"), "true") || c.getenv("AZURE_CLIENT_SEND_CERTIFICATE_CHAIN") == "1"
	assertion, err := cert.assertion(c.tokenURL(tenant), id, c.now().Unix(), chain)
	if err != nil {
		return token{}, err
	}
	return c.login(ctx, tenant, url.Values{"client_id": {id}, "client_assertion": {assertion},
		"client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"}})
}

// clientCert is a service principal's certificate, its RSA key, and the certificates of its
// chain that the file also holds.
type clientCert struct {
	leaf  *x509.Certificate
	key   *rsa.PrivateKey
	chain []*x509.Certificate
}

// readCertificate reads a PEM file, or else a PKCS#12 file opened with password.
func readCertificate(b []byte, password string) (clientCert, error) {
	var blocks []*pem.Block
	for rest := b; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		blocks = append(blocks, block)
	}
	if len(blocks) == 0 {
		var err error
		if blocks, err = pkcs12.ToPEM(b, password); err != nil {
			var ni pkcs12.NotImplementedError
			if !errors.As(err, &ni) {
				return clientCert{}, pkcs12Error(err, password)
			}
			// Not the legacy encryption x/crypto/pkcs12 reads: PBES2, as OpenSSL 3 writes.
			if blocks, err = pbes2PEM(b, password); err != nil {
				return clientCert{}, pkcs12Error(err, password)
			}
		}
	}
	var out clientCert
	var certs []*x509.Certificate
	for _, block := range blocks {
		switch block.Type {
		case "CERTIFICATE":
			cert, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				return out, fmt.Errorf("a CERTIFICATE block: %w", err)
			}
			certs = append(certs, cert)
		case "PRIVATE KEY", "RSA PRIVATE KEY":
			key, err := parseRSAKey(block.Bytes)
			if err != nil {
				return out, err
			}
			out.key = key
		case "ENCRYPTED PRIVATE KEY":
			return out, errors.New("its private key is encrypted, which gpucost does not read from PEM; " +
				"decrypt it (openssl pkcs8 -in FILE -out key.pem) or give a PKCS#12 file with AZURE_CLIENT_CERTIFICATE_PASSWORD")
		}
	}
	if out.key == nil || len(certs) == 0 {
		return out, fmt.Errorf("it holds %d certificates and %s; want the service principal's certificate and its private key",
			len(certs), map[bool]string{true: "a private key", false: "no private key"}[out.key != nil])
	}
	for _, cert := range certs {
		if pub, ok := cert.PublicKey.(*rsa.PublicKey); ok && pub.Equal(&out.key.PublicKey) && out.leaf == nil {
			out.leaf = cert
		} else {
			out.chain = append(out.chain, cert)
		}
	}
	if out.leaf == nil {
		return out, errors.New("none of its certificates is the private key's")
	}
	return out, nil
}

// parseRSAKey reads a PKCS#8 or PKCS#1 RSA private key; Microsoft Entra ID's client assertions
// are RSA signatures.
func parseRSAKey(der []byte) (*rsa.PrivateKey, error) {
	parsed, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		if k, err1 := x509.ParsePKCS1PrivateKey(der); err1 == nil {
			return k, nil
		}
		return nil, fmt.Errorf("its private key: %w", err)
	}
	k, ok := parsed.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("its private key is a %T; Microsoft Entra ID takes RSA certificates", parsed)
	}
	return k, nil
}

// pkcs12Error says what to do about a PKCS#12 file that cannot be opened.
func pkcs12Error(err error, password string) error {
	switch {
	case (errors.Is(err, pkcs12.ErrIncorrectPassword) || errors.Is(err, errWrongPassword)) && password == "":
		return errors.New("a PKCS#12 file with a password: set AZURE_CLIENT_CERTIFICATE_PASSWORD")
	case errors.Is(err, pkcs12.ErrIncorrectPassword) || errors.Is(err, errWrongPassword):
		return errWrongPassword
	}
	return fmt.Errorf("%w; convert it to PEM with openssl pkcs12 -in FILE -nodes -out cert.pem and set AZURE_CLIENT_CERTIFICATE_PATH to cert.pem", err)
}

// assertion signs the client assertion of Microsoft identity platform's certificate
// credentials: RS256, the certificate's SHA-1 (x5t) and SHA-256 (x5t#S256) thumbprints in the
// header (and the chain in x5c when asked, for subject name and issuer authentication); aud
// the token endpoint, iss and sub the client id, a random jti, nbf and iat now, exp ten
// minutes on.
func (cc clientCert) assertion(aud, clientID string, now int64, sendChain bool) (string, error) {
	s1, s256 := sha1.Sum(cc.leaf.Raw), sha256.Sum256(cc.leaf.Raw)
	head := map[string]any{"alg": "RS256", "typ": "JWT", "x5t": base64.RawURLEncoding.EncodeToString(s1[:]),
		"x5t#S256": base64.RawURLEncoding.EncodeToString(s256[:])}
	if sendChain {
		var x5c []string
		for _, cert := range append([]*x509.Certificate{cc.leaf}, cc.chain...) {
			x5c = append(x5c, base64.StdEncoding.EncodeToString(cert.Raw))
		}
		head["x5c"] = x5c
	}
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", err
	}
	jti[6], jti[8] = jti[6]&0x0f|0x40, jti[8]&0x3f|0x80 // a version 4 UUID
	claims := map[string]any{"aud": aud, "iss": clientID, "sub": clientID, "nbf": now, "iat": now, "exp": now + assertionLife,
		"jti": fmt.Sprintf("%x-%x-%x-%x-%x", jti[0:4], jti[4:6], jti[6:8], jti[8:10], jti[10:])}
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	signing := enc(head) + "." + enc(claims)
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, cc.key, crypto.SHA256, sum[:])
	if err != nil {
		return "", fmt.Errorf("sign the client assertion: %w", err)
	}
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}
