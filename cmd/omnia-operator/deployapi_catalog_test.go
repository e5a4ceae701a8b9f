package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/altairalabs/omnia/deploy/auth/authtest"
	"github.com/altairalabs/omnia/test/controlplane"
)

// TestCatalogNeedsItsOwnKeys: the
// catalog's delegation tokens are verified against a key set of their own.
// The operator refuses to start when that set is the deploy API's file,
// when the two files share a key, or when --platform-api-url would hand
// agents catalog tools with no delegation keys at all; each stop names why.
func TestCatalogNeedsItsOwnKeys(t *testing.T) {
	needsAPIServer(t)
	dir := t.TempDir()
	deployKey, delegationKey := authtest.MustSigner("dash", "ES256"), authtest.MustSigner("runtime", "ES256")
	deployJWKS, sharedJWKS := filepath.Join(dir, "deploy.json"), filepath.Join(dir, "shared.json")
	if err := authtest.WriteJWKS(deployJWKS, deployKey); err != nil {
		t.Fatal(err)
	}
	if err := authtest.WriteJWKS(sharedJWKS, delegationKey, deployKey); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"the same file", []string{"--catalog-jwks-file", deployJWKS}, "--catalog-jwks-file is --deploy-api-jwks-file"},
		{"a shared key", []string{"--catalog-jwks-file", sharedJWKS}, "share the keys [dash]"},
		{"catalog tools without delegation keys", []string{"--platform-api-url", "https://omnia.test:9444"}, "the catalog needs --catalog-jwks-file or --catalog-jwks-url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port, err := controlplane.FreePort()
			if err != nil {
				t.Fatal(err)
			}
			webhookPort, err := controlplane.FreePort()
			if err != nil {
				t.Fatal(err)
			}
			// Not launch(): this operator must exit by itself.
			op, err := controlplane.LaunchOperator(controlplane.OperatorOptions{
				Binary:      binary,
				Kubeconfig:  kubeconfig,
				CertDir:     env.WebhookInstallOptions.LocalServingCertDir,
				CAData:      env.WebhookInstallOptions.LocalServingCAData,
				WebhookPort: webhookPort,
				LogPath:     filepath.Join(t.TempDir(), "operator.log"),
				Args: append([]string{"--deploy-api-bind-address", "127.0.0.1:" + strconv.Itoa(port),
					"--deploy-api-jwks-file", deployJWKS}, tc.args...),
			})
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-op.Exited():
			case <-time.After(time.Minute):
				op.Stop()
				t.Fatalf("the operator kept running with %v", tc.args)
			}
			if log := operatorLog(t, op); !strings.Contains(log, tc.want) {
				t.Fatalf("the log does not say %q:\n%s", tc.want, log)
			}
		})
	}
}
