package licensing

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/golang-jwt/jwt/v5"
)

// minRSABits is the smallest RSA key accepted.
const minRSABits = 2048

// PublicKey is one trusted licence-signing key, with the algorithms its type
// allows. The algorithm is pinned to the key: a token naming any other
// algorithm (none, an HMAC keyed with the public key's bytes, RSA for an
// ECDSA key, ...) is never checked against it.
type PublicKey struct {
	Key crypto.PublicKey
	// Algorithms are the JWS "alg" values this key verifies.
	Algorithms []string
	// Origin says where the key came from (file and block), for messages.
	Origin string
}

// algorithmsFor pins the JWS algorithms to a key's type: RSA → RS256 and
// PS256; ECDSA P-256 → ES256, P-384 → ES384; Ed25519 → EdDSA. Any other key
// (a short RSA key, another curve) is refused.
func algorithmsFor(key crypto.PublicKey) ([]string, error) {
	switch k := key.(type) {
	case *rsa.PublicKey:
		if k.N.BitLen() < minRSABits {
			return nil, fmt.Errorf("RSA key of %d bits: at least %d required", k.N.BitLen(), minRSABits)
		}
		return []string{jwt.SigningMethodRS256.Alg(), jwt.SigningMethodPS256.Alg()}, nil
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return []string{jwt.SigningMethodES256.Alg()}, nil
		case elliptic.P384():
			return []string{jwt.SigningMethodES384.Alg()}, nil
		}
		return nil, fmt.Errorf("ECDSA key on curve %s: only P-256 (ES256) and P-384 (ES384) are accepted", k.Curve.Params().Name)
	case ed25519.PublicKey:
		return []string{jwt.SigningMethodEdDSA.Alg()}, nil
	}
	return nil, fmt.Errorf("key of type %T: only RSA, ECDSA (P-256, P-384) and Ed25519 public keys are accepted", key)
}

// NewPublicKey wraps a parsed public key, pinning its algorithms.
func NewPublicKey(key crypto.PublicKey, origin string) (PublicKey, error) {
	algs, err := algorithmsFor(key)
	if err != nil {
		return PublicKey{}, fmt.Errorf("%s: %w", origin, err)
	}
	return PublicKey{Key: key, Algorithms: algs, Origin: origin}, nil
}

// ParsePublicKeys reads every PEM block of data: "PUBLIC KEY" (PKIX) or
// "RSA PUBLIC KEY" (PKCS #1). Several blocks give several trusted keys (key
// rotation: the old and the new key side by side). A private key, a
// certificate or any other block is an error, as is data with no block.
func ParsePublicKeys(data []byte, origin string) ([]PublicKey, error) {
	var keys []PublicKey
	rest := data
	for i := 1; ; i++ {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		where := fmt.Sprintf("%s: PEM block %d", origin, i)
		var (
			key crypto.PublicKey
			err error
		)
		switch block.Type {
		case "PUBLIC KEY":
			key, err = x509.ParsePKIXPublicKey(block.Bytes)
		case "RSA PUBLIC KEY":
			key, err = x509.ParsePKCS1PublicKey(block.Bytes)
		default:
			if strings.Contains(block.Type, "PRIVATE") {
				return nil, fmt.Errorf("%s is a private key (%s): give the operator the public key only", where, block.Type)
			}
			return nil, fmt.Errorf("%s has type %q: want PUBLIC KEY or RSA PUBLIC KEY", where, block.Type)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		pk, err := NewPublicKey(key, where)
		if err != nil {
			return nil, err
		}
		keys = append(keys, pk)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: no PEM public key found", origin)
	}
	return keys, nil
}

// LoadPublicKeyFiles reads and parses each file (ParsePublicKeys).
func LoadPublicKeyFiles(paths []string) ([]PublicKey, error) {
	var keys []PublicKey
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("reading licence public key: %w", err)
		}
		ks, err := ParsePublicKeys(data, p)
		if err != nil {
			return nil, err
		}
		keys = append(keys, ks...)
	}
	return keys, nil
}

// MarshalPublicKeyPEM encodes a public key as a PKIX "PUBLIC KEY" PEM block.
func MarshalPublicKeyPEM(key crypto.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}

// errNoKeys: the operator trusts no key, so no licence can be valid.
var errNoKeys = errors.New("no licence public key is configured (--license-public-key), so no licence can be verified")
