package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/altairalabs/omnia/licensing"
)

// licenseFiles writes a key pair's public half and a licence it signed.
func licenseFiles(t *testing.T, dir string, claims licensing.Claims) (licenseFile, keyFile string) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := licensing.Sign(claims, priv)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := licensing.MarshalPublicKeyPEM(priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	licenseFile, keyFile = filepath.Join(dir, "license.jwt"), filepath.Join(dir, "license.pub")
	if err := os.WriteFile(licenseFile, []byte(tok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pub, 0o600); err != nil {
		t.Fatal(err)
	}
	return licenseFile, keyFile
}

const customFacadeAgent = `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: AgentRuntime
metadata: {name: custom-facade, namespace: agents}
spec:
  promptPackRef: {name: support}
  providers: [{name: default, providerRef: {name: claude}}]
  facades: [{type: custom, image: "registry.example/facade:1"}]
`

func TestCheckWithLicense(t *testing.T) {
	dir := t.TempDir()
	lic, key := licenseFiles(t, dir, licensing.NewClaims("lic-7", "Acme", licensing.TierEnterprise,
		[]string{licensing.FeatureCustomFacade}, nil, time.Now().Add(-time.Minute), time.Hour))
	_, otherKey := licenseFiles(t, t.TempDir(), licensing.NewClaims("x", "Other", licensing.TierEnterprise, nil, nil, time.Now(), time.Hour))
	manifest := filepath.Join(dir, "agent.yaml")
	if err := os.WriteFile(manifest, []byte(customFacadeAgent), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		args     []string
		wantCode int
		refused  bool
	}{
		{name: "open-core refuses the custom facade", args: nil, wantCode: exitDenied, refused: true},
		{name: "the licence grants it", args: []string{"--license", lic, "--license-public-key", key}, wantCode: exitOK},
		{name: "a licence signed by another key is unusable", args: []string{"--license", lic, "--license-public-key", otherKey}, wantCode: exitInput},
		{name: "a licence without a key is unusable", args: []string{"--license", lic}, wantCode: exitInput},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append([]string{"check", "-f", manifest, "-o", "json"}, c.args...), nil, &stdout, &stderr)
			if code != c.wantCode {
				t.Fatalf("exit %d, want %d; stderr: %s", code, c.wantCode, stderr.String())
			}
			if got := strings.Contains(stdout.String(), "agentruntime/custom-facade-license"); got != c.refused {
				t.Errorf("custom-facade-license reported: %v, want %v\n%s", got, c.refused, stdout.String())
			}
		})
	}
}

func TestLicenseInspect(t *testing.T) {
	dir := t.TempDir()
	lic, key := licenseFiles(t, dir, licensing.NewClaims("lic-9", "Acme", licensing.TierEnterprise,
		[]string{licensing.FeatureLoadTesting, licensing.FeatureScheduling}, &licensing.Limits{MaxScenarios: 0, MaxWorkerReplicas: 4},
		time.Now().Add(-time.Minute), time.Hour))
	_, otherKey := licenseFiles(t, t.TempDir(), licensing.NewClaims("x", "Other", licensing.TierEnterprise, nil, nil, time.Now(), time.Hour))

	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"license", "inspect", lic, "--public-key", key, "-o", "json"}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("verified inspect: exit %d: %s", code, stderr.String())
	}
	var rep struct {
		Verified bool     `json:"verified"`
		Granted  []string `json:"granted"`
		Limits   struct {
			MaxScenarios, MaxWorkerReplicas int
		} `json:"effectiveLimits"`
		License struct {
			Customer string `json:"customer"`
		} `json:"license"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if !rep.Verified || rep.License.Customer != "Acme" || strings.Join(rep.Granted, ",") != "loadTesting,scheduling" ||
		rep.Limits.MaxScenarios != 0 || rep.Limits.MaxWorkerReplicas != 4 {
		t.Errorf("report = %+v", rep)
	}

	stdout.Reset()
	if code := run(context.Background(), []string{"license", "inspect", lic}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("unverified inspect: exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"NOT verified", "loadTesting, scheduling", "maxScenarios", "unlimited", "customFacade"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, stdout.String())
		}
	}

	stderr.Reset()
	if code := run(context.Background(), []string{"license", "inspect", lic, "--public-key", otherKey}, nil, &stdout, &stderr); code != exitDenied ||
		!strings.Contains(stderr.String(), "signature") {
		t.Errorf("another issuer's key: exit %d, stderr %q; want %d and a signature error", code, stderr.String(), exitDenied)
	}
}
