package licensing

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

var testNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func mustKey[T any](k T, err error) T {
	if err != nil {
		panic(err)
	}
	return k
}

func ed25519Key(t *testing.T) ed25519.PrivateKey {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	return mustKey(priv, err)
}

func trusted(t *testing.T, signers ...crypto.Signer) []PublicKey {
	t.Helper()
	var keys []PublicKey
	for _, s := range signers {
		pemBytes, err := MarshalPublicKeyPEM(s.Public())
		if err != nil {
			t.Fatal(err)
		}
		ks, err := ParsePublicKeys(pemBytes, "test")
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, ks...)
	}
	return keys
}

func enterpriseClaims(iat time.Time, validity time.Duration) Claims {
	return NewClaims("lic-1", "Acme", TierEnterprise, []string{FeatureCustomFacade, FeatureLoadTesting},
		&Limits{MaxScenarios: 0, MaxWorkerReplicas: 8}, iat, validity)
}

func sign(t *testing.T, c Claims, key crypto.Signer) string {
	t.Helper()
	tok, err := Sign(c, key)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func b64(v any) string {
	var data []byte
	switch x := v.(type) {
	case []byte:
		data = x
	default:
		data, _ = json.Marshal(x)
	}
	return base64.RawURLEncoding.EncodeToString(data)
}

// hs256WithPublicKey forges the classic algorithm-confusion token: HS256
// keyed with the bytes of the trusted public key.
func hs256WithPublicKey(t *testing.T, c Claims, pub crypto.PublicKey) string {
	t.Helper()
	secret, err := MarshalPublicKeyPEM(pub)
	if err != nil {
		t.Fatal(err)
	}
	unsigned := b64(map[string]string{"alg": "HS256", "typ": "JWT"}) + "." + b64(c)
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(unsigned))
	return unsigned + "." + b64(m.Sum(nil))
}

func TestVerify(t *testing.T) {
	issuer := ed25519Key(t)
	other := ed25519Key(t)
	ec := mustKey(ecdsa.GenerateKey(elliptic.P256(), rand.Reader))
	rsaKey := mustKey(rsa.GenerateKey(rand.Reader, 2048))
	valid := enterpriseClaims(testNow.Add(-time.Hour), 24*time.Hour)
	good := sign(t, valid, issuer)
	parts := strings.Split(good, ".")

	tampered := func() string {
		c := valid
		c.Features = append(c.Features, FeatureScheduling)
		return parts[0] + "." + b64(c) + "." + parts[2]
	}()

	cases := []struct {
		name    string
		keys    []PublicKey
		token   string
		want    error
		inGrace bool
	}{
		{name: "valid Ed25519", keys: trusted(t, issuer), token: good},
		{name: "valid with a rotated key set", keys: trusted(t, other, issuer), token: good},
		{name: "valid ES256", keys: trusted(t, ec), token: sign(t, valid, ec)},
		{name: "valid RS256", keys: trusted(t, rsaKey), token: sign(t, valid, rsaKey)},
		{name: "in grace", keys: trusted(t, issuer), token: sign(t, enterpriseClaims(testNow.Add(-48*time.Hour), 24*time.Hour), issuer), inGrace: true},
		{name: "signed by another key", keys: trusted(t, other), token: good, want: ErrSignature},
		{name: "expired beyond grace", keys: trusted(t, issuer), token: sign(t, enterpriseClaims(testNow.Add(-100*time.Hour), 24*time.Hour), issuer), want: ErrExpired},
		{name: "issued in the future", keys: trusted(t, issuer), token: sign(t, enterpriseClaims(testNow.Add(time.Hour), 24*time.Hour), issuer), want: ErrNotYet},
		{name: "tampered body", keys: trusted(t, issuer), token: tampered, want: ErrSignature},
		{name: "alg none", keys: trusted(t, issuer), token: b64(map[string]string{"alg": "none", "typ": "JWT"}) + "." + b64(valid) + ".", want: ErrAlgorithm},
		{name: "HS256 keyed with the RSA public key", keys: trusted(t, rsaKey), token: hs256WithPublicKey(t, valid, rsaKey.Public()), want: ErrAlgorithm},
		{name: "HS256 keyed with the Ed25519 public key", keys: trusted(t, issuer), token: hs256WithPublicKey(t, valid, issuer.Public()), want: ErrAlgorithm},
		{name: "ES256 token against an RSA key", keys: trusted(t, rsaKey), token: sign(t, valid, ec), want: ErrAlgorithm},
		{name: "EdDSA header on an RS256 signature", keys: trusted(t, issuer), token: func() string {
			p := strings.Split(sign(t, valid, rsaKey), ".")
			return b64(map[string]string{"alg": "EdDSA", "typ": "JWT"}) + "." + p[1] + "." + p[2]
		}(), want: ErrSignature},
		{name: "no trusted key", keys: nil, token: good, want: ErrNoKeys},
		{name: "not a JWT", keys: trusted(t, issuer), token: "hello", want: ErrMalformed},
		{name: "bad tier", keys: trusted(t, issuer), token: func() string {
			c := valid
			c.Tier = "gold"
			unsigned := parts[0] + "." + b64(c)
			sig := ed25519.Sign(issuer, []byte(unsigned))
			return unsigned + "." + b64(sig)
		}(), want: ErrInvalidClaims},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := NewVerifier(c.keys, DefaultGrace, func() time.Time { return testNow })
			got, err := v.Verify(c.token)
			if c.want != nil {
				if !errors.Is(err, c.want) {
					t.Fatalf("Verify: got %v, want %v", err, c.want)
				}
				if strings.Contains(err.Error(), c.token) {
					t.Fatalf("the error quotes the token: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if got.InGrace != c.inGrace {
				t.Errorf("InGrace = %v, want %v", got.InGrace, c.inGrace)
			}
			l := got.License
			if !l.Has(FeatureCustomFacade) || !l.Has(FeatureLoadTesting) || l.Has(FeatureScheduling) {
				t.Errorf("features = %v, want customFacade and loadTesting only", l.FeatureList())
			}
			if !l.Enterprise() || l.Customer != "Acme" || l.ID != "lic-1" {
				t.Errorf("licence = %+v", l)
			}
			if l.MaxScenarios() != 0 || l.MaxWorkerReplicas() != 8 {
				t.Errorf("limits = %d scenarios, %d workers; want 0 (unlimited), 8", l.MaxScenarios(), l.MaxWorkerReplicas())
			}
		})
	}
}

func TestOpenCoreDefaults(t *testing.T) {
	for name, l := range map[string]License{"zero": {}, "OpenCore": OpenCore()} {
		if l.MaxScenarios() != 10 || l.MaxWorkerReplicas() != 1 || l.Enterprise() || len(l.FeatureList()) != 0 {
			t.Errorf("%s licence: %d scenarios, %d workers, enterprise %v, features %v; want the open-core 10, 1, false, none",
				name, l.MaxScenarios(), l.MaxWorkerReplicas(), l.Enterprise(), l.FeatureList())
		}
	}
}

func TestStateOf(t *testing.T) {
	issuer := ed25519Key(t)
	v := NewVerifier(trusted(t, issuer), DefaultGrace, func() time.Time { return testNow })
	if st := v.StateOf("", "no licence installed"); st.Verified || st.Reason != "no licence installed" || st.License.Enterprise() {
		t.Errorf("no token: %+v", st)
	}
	if st := v.StateOf("a.b.c", ""); st.Verified || st.Reason == "" || st.License.Has(FeatureCustomFacade) {
		t.Errorf("bad token: %+v", st)
	}
	if st := v.StateOf(sign(t, enterpriseClaims(testNow, time.Hour), issuer), ""); !st.Verified || !st.License.Has(FeatureCustomFacade) {
		t.Errorf("good token: %+v", st)
	}
}

func TestParsePublicKeys(t *testing.T) {
	a, b := ed25519Key(t), mustKey(ecdsa.GenerateKey(elliptic.P384(), rand.Reader))
	pa, _ := MarshalPublicKeyPEM(a.Public())
	pb, _ := MarshalPublicKeyPEM(b.Public())
	keys, err := ParsePublicKeys(append(pa, pb...), "bundle.pem")
	if err != nil || len(keys) != 2 {
		t.Fatalf("two blocks: %d keys, %v", len(keys), err)
	}
	if keys[0].Algorithms[0] != "EdDSA" || keys[1].Algorithms[0] != "ES384" {
		t.Errorf("algorithms = %v, %v", keys[0].Algorithms, keys[1].Algorithms)
	}
	small := mustKey(rsa.GenerateKey(rand.Reader, 1024))
	ps, _ := MarshalPublicKeyPEM(small.Public())
	for name, data := range map[string][]byte{
		"empty":       nil,
		"private key": []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"),
		"short RSA":   ps,
		"P-521": func() []byte {
			k := mustKey(ecdsa.GenerateKey(elliptic.P521(), rand.Reader))
			p, _ := MarshalPublicKeyPEM(k.Public())
			return p
		}(),
	} {
		if _, err := ParsePublicKeys(data, name); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestStoreSwaps(t *testing.T) {
	var s Store
	if s.Current().Enterprise() {
		t.Fatal("zero store is not open-core")
	}
	s.Set(State{License: License{Tier: TierEnterprise}, Verified: true})
	if !s.Current().Enterprise() {
		t.Fatal("Set did not take effect")
	}
}
