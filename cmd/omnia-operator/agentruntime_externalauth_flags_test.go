package main

import (
	"encoding/pem"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/altairalabs/omnia/reconcile/agentruntime"
)

func TestExternalAuthFlags(t *testing.T) {
	dir := t.TempDir()
	srv := httptest.NewTLSServer(nil)
	defer srv.Close()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("nope"), 0o600); err != nil {
		t.Fatal(err)
	}
	var o agentruntime.Options
	f, _ := parseFlags(t, "--oidc-ca-file", ca, "--oidc-jwks-refresh", "1h")
	if err := f.agentRuntime.externalAuth.apply(&o); err != nil || o.ExternalAuth.Fetcher == nil || o.ExternalAuth.RefreshInterval != time.Hour {
		t.Fatalf("options = %+v, %v", o.ExternalAuth, err)
	}
	for _, tc := range []struct{ flag, value, want string }{
		{"oidc-ca-file", filepath.Join(dir, "missing.pem"), "--oidc-ca-file"},
		{"oidc-ca-file", notPEM, "--oidc-ca-file"},
		{"oidc-jwks-refresh", "0s", "--oidc-jwks-refresh"},
	} {
		f, _ := parseFlags(t, "--"+tc.flag, tc.value)
		if err := f.agentRuntime.externalAuth.apply(&agentruntime.Options{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--%s=%s: error %v, want one naming %s", tc.flag, tc.value, err, tc.want)
		}
	}
}
