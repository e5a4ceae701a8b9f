package main

import (
	"encoding/pem"
	"flag"
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
	set := func(kv ...string) {
		t.Helper()
		for i := 0; i < len(kv); i += 2 {
			if err := flag.CommandLine.Set(kv[i], kv[i+1]); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Cleanup(func() { set("oidc-ca-file", "", "oidc-jwks-refresh", "6h", "oidc-fetch-timeout", "10s") })

	var o agentruntime.Options
	set("oidc-ca-file", ca, "oidc-jwks-refresh", "1h")
	if err := externalAuthOptions(&o); err != nil || o.ExternalAuth.Fetcher == nil || o.ExternalAuth.RefreshInterval != time.Hour {
		t.Fatalf("options = %+v, %v", o.ExternalAuth, err)
	}
	for _, tc := range []struct{ flag, value, want string }{
		{"oidc-ca-file", filepath.Join(dir, "missing.pem"), "--oidc-ca-file"},
		{"oidc-ca-file", notPEM, "--oidc-ca-file"},
		{"oidc-jwks-refresh", "0s", "--oidc-jwks-refresh"},
	} {
		set("oidc-ca-file", "", "oidc-jwks-refresh", "6h")
		set(tc.flag, tc.value)
		if err := externalAuthOptions(&agentruntime.Options{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--%s=%s: error %v, want one naming %s", tc.flag, tc.value, err, tc.want)
		}
	}
}
