package main

import (
	"strings"
	"testing"
	"time"
)

// TestPolicyWiring: the operator refuses a non-positive
// --policy-rego-timeout at start, and otherwise reports, in /readyz, that
// the cluster's ValidationPolicies are loaded (the check every replica
// passes before its webhooks judge anything with them).
func TestPolicyWiring(t *testing.T) {
	needsAPIServer(t)
	certs := env.WebhookInstallOptions.LocalServingCertDir

	t.Run("a non-positive --policy-rego-timeout stops the operator", func(t *testing.T) {
		op := launch(t, "bad-rego-timeout", certs, "--leader-elect=false", "--policy-rego-timeout=0s")
		// WaitReady notices the exit (and leaves it for Stop).
		if err := op.WaitReady(time.Minute); err == nil || !strings.Contains(err.Error(), "exited before it was ready") {
			t.Fatalf("want the operator to exit, got %v", err)
		}
		if log := operatorLog(t, op); !strings.Contains(log, "--policy-rego-timeout 0s: must be positive") {
			t.Errorf("the log does not name the flag and why:\n%s", log)
		}
	})

	t.Run("ready once the policies are loaded", func(t *testing.T) {
		op := launch(t, "policies", certs, "--leader-elect=false")
		if err := op.WaitReady(time.Minute); err != nil {
			t.Fatal(err)
		}
		_, body, err := op.Ready()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(body, "[+]policies ok") {
			t.Errorf("/readyz lacks the policies check:\n%s", body)
		}
	})
}
