package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-logr/logr"
	"github.com/golang-jwt/jwt/v5"
)

// minRSABits is the smallest RSA key a JWKS may hold.
const minRSABits = 2048

// Key is one trusted token-signing key from a JWKS, with the JWS algorithms
// its type allows. A token naming any other algorithm — none, an HMAC keyed
// with the public key's bytes, RS256 for an EC key — is never checked
// against it.
type Key struct {
	ID         string
	Public     crypto.PublicKey
	Algorithms []string
}

// KeySet is the keys a Verifier trusts, looked up by the token's kid.
type KeySet interface {
	// Key returns the key with this kid, or false.
	Key(kid string) (Key, bool)
}

// StaticKeys is a fixed KeySet.
type StaticKeys map[string]Key

// Key implements KeySet.
func (s StaticKeys) Key(kid string) (Key, bool) {
	k, ok := s[kid]
	return k, ok
}

// algorithmsFor pins the JWS algorithms to a key's type: RSA (2048 bits or
// more) → RS256, RS384, RS512, PS256, PS384, PS512; ECDSA P-256 → ES256,
// P-384 → ES384, P-521 → ES512; Ed25519 → EdDSA. Any other key is refused.
func algorithmsFor(key crypto.PublicKey) ([]string, error) {
	switch k := key.(type) {
	case *rsa.PublicKey:
		if k.N.BitLen() < minRSABits {
			return nil, fmt.Errorf("RSA key of %d bits: at least %d required", k.N.BitLen(), minRSABits)
		}
		return []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512"}, nil
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return []string{"ES256"}, nil
		case elliptic.P384():
			return []string{"ES384"}, nil
		case elliptic.P521():
			return []string{"ES512"}, nil
		}
		return nil, fmt.Errorf("ECDSA key on curve %s: only P-256, P-384 and P-521 are accepted", k.Curve.Params().Name)
	case ed25519.PublicKey:
		return []string{jwt.SigningMethodEdDSA.Alg()}, nil
	}
	return nil, fmt.Errorf("key of type %T: only RSA, ECDSA and Ed25519 public keys are accepted", key)
}

// allAlgorithms is every algorithm any key may pin: the parser refuses
// anything else (none, HS*) before a key is even looked up.
var allAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// ParseJWKS reads a JSON Web Key Set (RFC 7517) of signing keys. Every key
// needs a unique kid; a key with "use": "enc" is skipped; a private or
// symmetric key, a short RSA key or an unknown curve makes the whole set an
// error (a configuration mistake, not something to half-apply). A key's
// "alg", when present, narrows it to that one algorithm, which must suit
// the key's type.
func ParseJWKS(data []byte) (StaticKeys, error) {
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("JWKS: %w", err)
	}
	keys := StaticKeys{}
	for i, jwk := range set.Keys {
		where := fmt.Sprintf("JWKS key %d (kid %q)", i, jwk.KeyID)
		if jwk.Use == "enc" {
			continue
		}
		if jwk.Use != "" && jwk.Use != "sig" {
			return nil, fmt.Errorf("%s: use %q: only sig is accepted", where, jwk.Use)
		}
		if jwk.KeyID == "" {
			return nil, fmt.Errorf("%s: no kid: every key needs one, tokens select their key by kid", where)
		}
		if _, dup := keys[jwk.KeyID]; dup {
			return nil, fmt.Errorf("%s: duplicate kid", where)
		}
		if !jwk.IsPublic() {
			return nil, fmt.Errorf("%s: a private or symmetric key: publish public signing keys only", where)
		}
		algs, err := algorithmsFor(jwk.Key)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if jwk.Algorithm != "" {
			if !slices.Contains(algs, jwk.Algorithm) {
				return nil, fmt.Errorf("%s: alg %q does not suit the key's type (accepted: %v)", where, jwk.Algorithm, algs)
			}
			algs = []string{jwk.Algorithm}
		}
		keys[jwk.KeyID] = Key{ID: jwk.KeyID, Public: jwk.Key, Algorithms: algs}
	}
	if len(keys) == 0 {
		return nil, errors.New("JWKS: no signing key")
	}
	return keys, nil
}

// FileKeys is a KeySet read from a JWKS file (e.g. a mounted Secret or
// ConfigMap). Every lookup stats the file and re-reads it when its
// modification time or size changed, so a rotated key is trusted from the
// first token that names it. A file that no longer parses keeps the last
// good set in force (LastError says why).
type FileKeys struct {
	path string
	// Log receives a reload's failure (once per distinct error) and the
	// recovery after one.
	Log logr.Logger

	mu      sync.Mutex
	keys    StaticKeys
	modTime time.Time
	size    int64
	lastErr error
}

// NewFileKeys reads the JWKS at path; a file that is missing or does not
// parse is an error (the operator refuses to start with it).
func NewFileKeys(path string) (*FileKeys, error) {
	f := &FileKeys{path: path}
	if err := f.reload(); err != nil {
		return nil, err
	}
	return f, nil
}

// reload re-reads the file when it changed. Call with mu held or before f
// is shared.
func (f *FileKeys) reload() error {
	st, err := os.Stat(f.path)
	if err != nil {
		return fmt.Errorf("JWKS file: %w", err)
	}
	if f.keys != nil && st.ModTime().Equal(f.modTime) && st.Size() == f.size {
		return nil
	}
	data, err := os.ReadFile(f.path)
	if err != nil {
		return fmt.Errorf("JWKS file: %w", err)
	}
	keys, err := ParseJWKS(data)
	if err != nil {
		return fmt.Errorf("JWKS file %s: %w", f.path, err)
	}
	f.keys, f.modTime, f.size = keys, st.ModTime(), st.Size()
	return nil
}

// Key implements KeySet.
func (f *FileKeys) Key(kid string) (Key, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	err := f.reload()
	switch {
	case err != nil && (f.lastErr == nil || f.lastErr.Error() != err.Error()):
		f.Log.Error(err, "re-reading the JWKS file failed; the last good keys stay in force", "path", f.path)
	case err == nil && f.lastErr != nil:
		f.Log.Info("the JWKS file loads again", "path", f.path)
	}
	f.lastErr = err
	k, ok := f.keys[kid]
	return k, ok
}

// LastError is the last reload's error (nil when the file read cleanly).
func (f *FileKeys) LastError() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastErr
}
