package main

import (
	"os"
	"path/filepath"
	"strconv"

	"github.com/altairalabs/omnia/deploy/auth/authtest"
	"github.com/altairalabs/omnia/test/controlplane"
)

// The deploy API of `make run` (docs/deploy-api.md): on a free loopback
// port, with the webhook's serving certificate, trusting one development
// token-signing key (ES256, kid local-dev) kept under
// <state>/deploy-api/signing-key.pem across runs. hack/deploy-token mints
// tokens with it; nothing else trusts it.
const devDeployKID = "local-dev"

// setupDeployAPI writes the development JWKS and the serving certificate's
// CA (caPEM, as ca.crt, for clients) and returns the operator arguments
// that serve the deploy API, and its URL (also written to
// <state>/deploy-api/url).
func setupDeployAPI(state string, caPEM []byte) ([]string, string, error) {
	dir := filepath.Join(state, "deploy-api")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", err
	}
	signer, err := authtest.LoadOrCreateES256(filepath.Join(dir, "signing-key.pem"), devDeployKID)
	if err != nil {
		return nil, "", err
	}
	jwks := filepath.Join(dir, "jwks.json")
	if err := authtest.WriteJWKS(jwks, signer); err != nil {
		return nil, "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "ca.crt"), caPEM, 0o600); err != nil {
		return nil, "", err
	}
	port, err := controlplane.FreePort()
	if err != nil {
		return nil, "", err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	url := "https://" + addr
	if err := os.WriteFile(filepath.Join(dir, "url"), []byte(url+"\n"), 0o600); err != nil {
		return nil, "", err
	}
	return []string{
		"--deploy-api-bind-address", addr,
		"--deploy-api-jwks-file", jwks,
		"--deploy-api-advertise-url", url,
	}, url, nil
}
