package licensing

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"fmt"

	"github.com/golang-jwt/jwt/v5"
)

// Sign issues a licence: claims signed with key (Ed25519, ECDSA P-256/P-384
// or RSA), with the algorithm the key's public half is pinned to (RSA signs
// RS256). It exists for `make run`'s development licence and for tests; a
// release issuer signs with its own tooling. The claims are validated first.
func Sign(claims Claims, key crypto.Signer) (string, error) {
	if err := claims.validate(); err != nil {
		return "", err
	}
	var method jwt.SigningMethod
	switch k := key.(type) {
	case ed25519.PrivateKey:
		method = jwt.SigningMethodEdDSA
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			method = jwt.SigningMethodES256
		case elliptic.P384():
			method = jwt.SigningMethodES384
		default:
			return "", fmt.Errorf("ECDSA curve %s is not accepted", k.Curve.Params().Name)
		}
	case *rsa.PrivateKey:
		method = jwt.SigningMethodRS256
	default:
		return "", fmt.Errorf("signing key of type %T is not accepted", key)
	}
	return jwt.NewWithClaims(method, &claims).SignedString(key)
}
