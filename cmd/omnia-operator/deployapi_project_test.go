package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/apply"
	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/licensing"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/rules/schema"
)

// TestDeployProject drives the Deployer's project path against the real
// API server with an enterprise licence: the user is the token subject's
// pseudonym (403 without one), names are derived (a given name that
// differs is 400 with the names rule), and the dev agent is applied; one
// being deleted is 503 with a Retry-After header.
func TestDeployProject(t *testing.T) {
	needsAPIServer(t)
	ns := namespace(t)
	sv, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	key := []byte("test-pseudonym-key")
	d := intentDeployer{client: admin, reader: admin, schema: sv, pseudonymKey: key}
	facts := rules.LicenseFacts{Source: licensing.License{Tier: licensing.TierEnterprise}}
	user := intent.Pseudonym("alice@example.com", key)
	name := intent.DevName("my-project", user)

	decode := func(body string) *intent.DeployIntent {
		in, err := intent.Decode([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	const agent = `"agents":[{%s"providers":[{"name":"default","ref":"claude"}],"facades":[{"type":"websocket","dataPlane":false}],"idleTimeout":"30m"}]}`
	dev := func(agentName string) *intent.DeployIntent {
		return decode(`{"apiVersion":"deploy.omnia.altairalabs.ai/v1","pack":{"project":{"id":"my-project"}},` +
			strings.Replace(agent, "%s", agentName, 1))
	}
	caller := func(sub string) auth.Caller {
		return auth.Caller{Subject: sub, Workspace: "acme", Namespace: ns, Role: auth.RoleEditor}
	}
	tests := []struct {
		name     string
		sub      string
		in       *intent.DeployIntent
		want     int
		contains string
	}{
		{"an identity with no user", "", dev(""), http.StatusForbidden, "no user"},
		{"a given agent name that differs", "alice@example.com", dev(`"name":"support-bot",`), http.StatusBadRequest,
			rules.DeployIntentProjectNamesRuleID},
		{"another user's dev name", "alice@example.com", dev(`"name":"` + intent.DevName("my-project", intent.Pseudonym("bob", key)) + `",`),
			http.StatusBadRequest, rules.DeployIntentProjectNamesRuleID},
		{"the derived name", "alice@example.com", dev(`"name":"` + name + `",`), http.StatusOK, name},
		{"no name", "alice@example.com", dev(""), http.StatusOK, name},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := d.deployProject(context.Background(), caller(tt.sub), tt.in, facts)
			body, _ := json.Marshal(resp.Body)
			if resp.Status != tt.want || !strings.Contains(string(body), tt.contains) {
				t.Errorf("%d %s, want %d naming %q", resp.Status, body, tt.want, tt.contains)
			}
			if strings.Contains(string(body), "alice") {
				t.Errorf("the subject is in the answer: %s", body)
			}
		})
	}
	ar := &v1alpha1.AgentRuntime{}
	if err := admin.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, ar); err != nil {
		t.Fatalf("the dev agent: %v", err)
	}
	if ar.Labels["omnia.altairalabs.ai/arena-user"] != user {
		t.Errorf("arena-user label %q, want the pseudonym %q", ar.Labels["omnia.altairalabs.ai/arena-user"], user)
	}

	// Being deleted: 503 with Retry-After.
	ar.Finalizers = []string{"test.omnia.altairalabs.ai/hold"}
	if err := admin.Update(context.Background(), ar); err != nil {
		t.Fatal(err)
	}
	if err := admin.Delete(context.Background(), ar); err != nil {
		t.Fatal(err)
	}
	resp := d.deployProject(context.Background(), caller("alice@example.com"), dev(""), facts)
	if resp.Status != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("deleting agent: %d headers %v, want 503 with Retry-After", resp.Status, resp.Header)
	}
	if got := resp.Header.Get("Retry-After"); got != "5" || apply.RetryAfterSeconds != 5 {
		t.Errorf("Retry-After %q", got)
	}
	ar.Finalizers = nil
	if err := admin.Get(context.Background(), client.ObjectKeyFromObject(ar), ar); err == nil {
		ar.Finalizers = nil
		_ = admin.Update(context.Background(), ar)
	}
}
