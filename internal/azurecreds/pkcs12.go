package azurecreds

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"hash"
	"unicode/utf16"
)

// The PKCS#12 (RFC 7292) and PKCS#5 (RFC 8018) object identifiers pbes2PEM reads.
var (
	oidData            = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 1}
	oidEncryptedData   = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 6}
	oidKeyBag          = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 10, 1, 1}
	oidShroudedKeyBag  = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 10, 1, 2}
	oidCertBag         = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 12, 10, 1, 3}
	oidX509Certificate = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 22, 1}
	oidPBES2           = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	oidPBKDF2          = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}
	oidSHA1            = asn1.ObjectIdentifier{1, 3, 14, 3, 2, 26}
	oidSHA256          = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}
	oidSHA384          = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 2}
	oidSHA512          = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 3}
)

// hmacPRFs are PBKDF2's pseudo-random functions by OID (hmacWithSHA1, -SHA256, -SHA384, -SHA512).
var hmacPRFs = map[string]func() hash.Hash{
	"1.2.840.113549.2.7": sha1.New, "1.2.840.113549.2.9": sha256.New, "1.2.840.113549.2.10": sha512.New384, "1.2.840.113549.2.11": sha512.New,
}

// aesKeyLen are the AES-CBC encryption schemes by OID and their key lengths.
var aesKeyLen = map[string]int{"2.16.840.1.101.3.4.1.2": 16, "2.16.840.1.101.3.4.1.22": 24, "2.16.840.1.101.3.4.1.42": 32}

type algorithm struct {
	Algorithm  asn1.ObjectIdentifier
	Parameters asn1.RawValue `asn1:"optional"`
}

type contentInfo struct {
	ContentType asn1.ObjectIdentifier
	Content     asn1.RawValue `asn1:"tag:0,explicit,optional"`
}

type pfx struct {
	Version  int
	AuthSafe contentInfo
	MacData  macData `asn1:"optional"`
}

type macData struct {
	Mac struct {
		Algorithm algorithm
		Digest    []byte
	}
	MacSalt    []byte
	Iterations int `asn1:"optional,default:1"`
}

type encryptedData struct {
	Version int
	Info    struct {
		ContentType asn1.ObjectIdentifier
		Algorithm   algorithm
		Content     []byte `asn1:"tag:0,optional"`
	}
}

type safeBag struct {
	ID         asn1.ObjectIdentifier
	Value      asn1.RawValue `asn1:"tag:0,explicit"`
	Attributes asn1.RawValue `asn1:"optional"`
}

type certBag struct {
	ID   asn1.ObjectIdentifier
	Data []byte `asn1:"tag:0,explicit"`
}

type encryptedKey struct {
	Algorithm algorithm
	Data      []byte
}

type pbes2Params struct {
	KDF    algorithm
	Scheme algorithm
}

type pbkdf2Params struct {
	Salt       []byte
	Iterations int
	KeyLength  int       `asn1:"optional"`
	PRF        algorithm `asn1:"optional"`
}

// pbes2PEM reads a PKCS#12 file whose bags are encrypted with PBES2 (PBKDF2 and AES-CBC, as
// OpenSSL 3 and Windows write them by default), checking its MAC (HMAC with the PKCS#12 key
// derivation, SHA-1 to SHA-512), and returns its certificates and key as PEM blocks.
func pbes2PEM(b []byte, password string) ([]*pem.Block, error) {
	var p pfx
	if err := unmarshalAll(b, &p); err != nil {
		return nil, fmt.Errorf("not a PKCS#12 file: %w", err)
	}
	if !p.AuthSafe.ContentType.Equal(oidData) {
		return nil, errors.New("a PKCS#12 file signed with a public key, which gpucost does not read")
	}
	var content []byte
	if err := unmarshalAll(p.AuthSafe.Content.Bytes, &content); err != nil {
		return nil, fmt.Errorf("PKCS#12 authSafe: %w", err)
	}
	if p.MacData.Iterations > maxIterations {
		return nil, fmt.Errorf("a PKCS#12 MAC of %d iterations, over gpucost's %d", p.MacData.Iterations, maxIterations)
	}
	if p.MacData.Mac.Algorithm.Algorithm != nil {
		if err := checkMAC(p.MacData, content, password); err != nil {
			return nil, err
		}
	}
	var safes []contentInfo
	if err := unmarshalAll(content, &safes); err != nil {
		return nil, fmt.Errorf("PKCS#12 authenticated safe: %w", err)
	}
	var out []*pem.Block
	for _, ci := range safes {
		data, err := safeContents(ci, password)
		if err != nil {
			return nil, err
		}
		var bags []safeBag
		if err := unmarshalAll(data, &bags); err != nil {
			return nil, fmt.Errorf("PKCS#12 safe contents: %w", err)
		}
		for _, bag := range bags {
			block, err := bagPEM(bag, password)
			if err != nil {
				return nil, err
			}
			if block != nil {
				out = append(out, block)
			}
		}
	}
	return out, nil
}

// safeContents returns a content info's safe contents, decrypted when it is encrypted data.
func safeContents(ci contentInfo, password string) ([]byte, error) {
	switch {
	case ci.ContentType.Equal(oidData):
		var data []byte
		err := unmarshalAll(ci.Content.Bytes, &data)
		return data, err
	case ci.ContentType.Equal(oidEncryptedData):
		var ed encryptedData
		if err := unmarshalAll(ci.Content.Bytes, &ed); err != nil {
			return nil, fmt.Errorf("PKCS#12 encrypted data: %w", err)
		}
		return decryptPBES2(ed.Info.Algorithm, ed.Info.Content, password)
	}
	return nil, fmt.Errorf("PKCS#12 content of type %v, which gpucost does not read", ci.ContentType)
}

// bagPEM turns a certificate or key bag into a PEM block; other bags (CRLs, secrets) are nil.
func bagPEM(bag safeBag, password string) (*pem.Block, error) {
	switch {
	case bag.ID.Equal(oidCertBag):
		var cb certBag
		if err := unmarshalAll(bag.Value.Bytes, &cb); err != nil || !cb.ID.Equal(oidX509Certificate) {
			return nil, fmt.Errorf("PKCS#12 certificate bag that is not an X.509 certificate (%v)", err)
		}
		return &pem.Block{Type: "CERTIFICATE", Bytes: cb.Data}, nil
	case bag.ID.Equal(oidKeyBag):
		return &pem.Block{Type: "PRIVATE KEY", Bytes: bag.Value.Bytes}, nil
	case bag.ID.Equal(oidShroudedKeyBag):
		var ek encryptedKey
		if err := unmarshalAll(bag.Value.Bytes, &ek); err != nil {
			return nil, fmt.Errorf("PKCS#12 key bag: %w", err)
		}
		key, err := decryptPBES2(ek.Algorithm, ek.Data, password)
		if err != nil {
			return nil, err
		}
		return &pem.Block{Type: "PRIVATE KEY", Bytes: key}, nil
	}
	return nil, nil
}

// decryptPBES2 decrypts data encrypted with PBES2: a key from PBKDF2 over the password's UTF-8
// bytes, AES-CBC with PKCS#7 padding.
func decryptPBES2(alg algorithm, data []byte, password string) ([]byte, error) {
	if !alg.Algorithm.Equal(oidPBES2) {
		return nil, fmt.Errorf("PKCS#12 encryption %v, which gpucost does not read (PBES2 with AES-CBC, or the legacy 3DES)", alg.Algorithm)
	}
	var params pbes2Params
	if err := unmarshalAll(alg.Parameters.FullBytes, &params); err != nil || !params.KDF.Algorithm.Equal(oidPBKDF2) {
		return nil, fmt.Errorf("PBES2 parameters without PBKDF2 (%v)", err)
	}
	var kdf pbkdf2Params
	if err := unmarshalAll(params.KDF.Parameters.FullBytes, &kdf); err != nil {
		return nil, fmt.Errorf("PBKDF2 parameters: %w", err)
	}
	prf := sha1.New
	if kdf.PRF.Algorithm != nil {
		var ok bool
		if prf, ok = hmacPRFs[kdf.PRF.Algorithm.String()]; !ok {
			return nil, fmt.Errorf("PBKDF2 with %v, which gpucost does not read", kdf.PRF.Algorithm)
		}
	}
	keyLen, ok := aesKeyLen[params.Scheme.Algorithm.String()]
	if !ok {
		return nil, fmt.Errorf("PBES2 encryption %v, which gpucost does not read (AES-CBC)", params.Scheme.Algorithm)
	}
	var iv []byte
	if err := unmarshalAll(params.Scheme.Parameters.FullBytes, &iv); err != nil || len(iv) != aes.BlockSize {
		return nil, errors.New("PBES2 AES-CBC without a 16-byte IV")
	}
	if kdf.KeyLength != 0 && kdf.KeyLength != keyLen || kdf.Iterations < 1 || kdf.Iterations > maxIterations || len(data) == 0 || len(data)%aes.BlockSize != 0 {
		return nil, errors.New("PBES2 parameters that do not fit AES-CBC")
	}
	key, err := pbkdf2.Key(prf, password, kdf.Salt, kdf.Iterations, keyLen)
	if err != nil {
		return nil, err
	}
	block, _ := aes.NewCipher(key)
	out := make([]byte, len(data))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(out, data)
	pad := int(out[len(out)-1])
	if pad < 1 || pad > aes.BlockSize {
		return nil, errWrongPassword
	}
	for _, c := range out[len(out)-pad:] {
		if int(c) != pad {
			return nil, errWrongPassword
		}
	}
	return out[:len(out)-pad], nil
}

// maxIterations bounds the key derivations' iteration counts, so that a crafted file cannot
// keep gpucost busy: writers use 2,048 to 600,000.
const maxIterations = 10_000_000

var errWrongPassword = errors.New("AZURE_CLIENT_CERTIFICATE_PASSWORD does not open the PKCS#12 file")

// checkMAC verifies the file's HMAC over its content with the key PKCS#12's derivation makes of
// the password (RFC 7292 appendix B, ID 3).
func checkMAC(m macData, content []byte, password string) error {
	var h func() hash.Hash
	switch alg := m.Mac.Algorithm.Algorithm; {
	case alg.Equal(oidSHA1):
		h = sha1.New
	case alg.Equal(oidSHA256):
		h = sha256.New
	case alg.Equal(oidSHA384):
		h = sha512.New384
	case alg.Equal(oidSHA512):
		h = sha512.New
	default:
		return fmt.Errorf("PKCS#12 MAC with %v, which gpucost does not read", alg)
	}
	passwords := [][]byte{bmpPassword(password)}
	if password == "" {
		passwords = append(passwords, nil) // some writers derive the empty password's key from no bytes at all
	}
	for _, p := range passwords {
		mac := hmac.New(h, pkcs12KDF(h, 3, p, m.MacSalt, m.Iterations, h().Size()))
		mac.Write(content)
		if hmac.Equal(mac.Sum(nil), m.Mac.Digest) {
			return nil
		}
	}
	return errWrongPassword
}

// bmpPassword is the password as PKCS#12's derivation takes it: UTF-16 big-endian with a
// two-byte terminator.
func bmpPassword(password string) []byte {
	var out []byte
	for _, r := range utf16.Encode([]rune(password)) {
		out = append(out, byte(r>>8), byte(r))
	}
	return append(out, 0, 0)
}

// pkcs12KDF is RFC 7292 appendix B.2's key derivation of n bytes for purpose id.
func pkcs12KDF(h func() hash.Hash, id byte, password, salt []byte, iterations, n int) []byte {
	v := h().BlockSize()
	fill := func(b []byte) []byte {
		if len(b) == 0 {
			return nil
		}
		out := make([]byte, v*((len(b)+v-1)/v))
		for i := range out {
			out[i] = b[i%len(b)]
		}
		return out
	}
	d := make([]byte, v)
	for i := range d {
		d[i] = id
	}
	I := append(fill(salt), fill(password)...)
	var out []byte
	for len(out) < n {
		d0 := h()
		d0.Write(d)
		d0.Write(I)
		a := d0.Sum(nil)
		for range iterations - 1 {
			d1 := h()
			d1.Write(a)
			a = d1.Sum(nil)
		}
		out = append(out, a...)
		if len(out) >= n {
			break
		}
		b := fill(a)[:v]
		for j := 0; j < len(I); j += v {
			carry := 1
			for k := v - 1; k >= 0; k-- {
				sum := int(I[j+k]) + int(b[k]) + carry
				I[j+k], carry = byte(sum), sum>>8
			}
		}
	}
	return out[:n]
}

// unmarshalAll decodes one DER value that fills b.
func unmarshalAll(b []byte, v any) error {
	rest, err := asn1.Unmarshal(b, v)
	if err == nil && len(rest) > 0 {
		err = errors.New("trailing data")
	}
	return err
}
