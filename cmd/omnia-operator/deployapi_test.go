package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/auth/authtest"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/test/controlplane"
)

// TestDeployAPI runs the operator with the deploy API on, as its
// ServiceAccount with the generated RBAC: the listener serves the webhook's
// certificate over HTTP/1.1 only (even with --enable-http2), refuses a
// request without a token, serves a viewer the profile from the cache,
// plans an editor's kit against the cache (400 for a request with neither
// arenaConfig nor deployConfig), refuses a dev project intent without a user (403)
// or without an enterprise licence (400).
func TestDeployAPI(t *testing.T) {
	needsAPIServer(t)
	signer := authtest.MustSigner("dash", "EdDSA")
	jwks := filepath.Join(t.TempDir(), "jwks.json")
	if err := authtest.WriteJWKS(jwks, signer); err != nil {
		t.Fatal(err)
	}
	port, err := controlplane.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	op := launch(t, "operator", env.WebhookInstallOptions.LocalServingCertDir, "--enable-http2",
		"--deploy-api-bind-address", addr, "--deploy-api-jwks-file", jwks, "--deploy-api-advertise-url", "https://deploy.omnia.test")
	if err := op.WaitReady(time.Minute); err != nil {
		t.Fatal(err)
	}
	ns := namespace(t)
	ws := workspaceOf(t, ns)
	mockProvider(t, ns, "local-mock")
	if err := admin.Create(context.Background(), &v1alpha1.SkillSource{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "policies"},
		Spec: v1alpha1.SkillSourceSpec{Type: v1alpha1.SkillSourceTypeGit}}); err != nil {
		t.Fatal(err)
	}

	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: caPool(t)}, ForceAttemptHTTP2: true}}
	callWith := func(method, path, body string, claims *auth.Claims) (int, []byte, error) {
		req, err := http.NewRequest(method, "https://"+addr+path, strings.NewReader(body))
		if err != nil {
			return 0, nil, err
		}
		if claims != nil {
			tok, err := signer.Mint(*claims)
			if err != nil {
				return 0, nil, err
			}
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := c.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		if resp.ProtoMajor != 1 {
			t.Errorf("the deploy API answered over HTTP/%d", resp.ProtoMajor)
		}
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}
	call := func(method, path string, claims *auth.Claims) (int, []byte, error) {
		return callWith(method, path, "{}", claims)
	}
	viewer := authtest.Claims("alice", ws, ns, auth.RoleViewer, time.Now())
	editor := authtest.Claims("alice", ws, ns, auth.RoleEditor, time.Now())

	want := intent.DeployProfile{
		APIEndpoint:                   "https://deploy.omnia.test",
		Workspace:                     ws,
		Providers:                     []intent.ProfileProvider{{Name: "local-mock", Role: "llm", Type: "mock"}},
		Skills:                        []intent.ProfileSkill{{Name: "policies", Type: "git"}},
		SupportedDeployIntentVersions: intent.SupportedVersions,
	}
	eventually(t, 30*time.Second, "the profile lists the workspace's Provider and SkillSource", func() error {
		code, body, err := call(http.MethodGet, "/api/v1/workspaces/"+ws+"/deploy-profile", &viewer)
		if err != nil {
			return err
		}
		var got intent.DeployProfile
		if code != http.StatusOK || json.Unmarshal(body, &got) != nil || !reflect.DeepEqual(got, want) {
			return fmt.Errorf("%d %s", code, body)
		}
		return nil
	})
	for _, tc := range []struct {
		method, path string
		claims       *auth.Claims
		want         int
	}{
		{http.MethodGet, "/api/v1/workspaces/" + ws + "/deploy-profile", nil, http.StatusUnauthorized},
		{http.MethodPost, "/api/v1/workspaces/" + ws + "/deployments", &viewer, http.StatusForbidden},
		{http.MethodPost, "/api/v1/workspaces/" + ws + "/deployments", &editor, http.StatusBadRequest},
		{http.MethodPost, "/api/v1/workspaces/" + ws + "/deploy/plan", &editor, http.StatusBadRequest},
	} {
		code, body, err := call(tc.method, tc.path, tc.claims)
		if err != nil {
			t.Fatal(err)
		}
		if code != tc.want {
			t.Errorf("%s %s: %d %s, want %d", tc.method, tc.path, code, body, tc.want)
		}
	}
	eventually(t, 30*time.Second, "the plan binds the workspace's Provider and reports the unknown one", func() error {
		code, body, err := callWith(http.MethodPost, "/api/v1/workspaces/"+ws+"/deploy/plan",
			`{"deployConfig":{"providers":[{"name":"default","ref":"local-mock"},{"name":"embed","ref":"nope","role":"embedding"}]}}`, &editor)
		if err != nil {
			return err
		}
		var got intent.PlanResponse
		if code != http.StatusOK || json.Unmarshal(body, &got) != nil || len(got.Providers) != 2 ||
			!got.Providers[0].Resolved || got.Providers[1].Resolved || len(got.Diagnostics) != 1 || got.Diagnostics[0].Code != "provider_not_found" {
			return fmt.Errorf("%d %s", code, body)
		}
		return nil
	})
	// A published pack with one agent: every object created, as the
	// operator, in the workspace's namespace; the same intent again writes
	// nothing (every result unchanged).
	deploy := `{"apiVersion":"deploy.omnia.altairalabs.ai/v1","pack":{"name":"support","version":"v1.0.0","content":"{\"id\":\"support\"}"},` +
		`"agents":[{"name":"support-bot","providers":[{"name":"default","ref":"local-mock"}]}]}`
	for _, want := range []intent.Action{intent.ActionCreated, intent.ActionUnchanged} {
		code, body, err := callWith(http.MethodPost, "/api/v1/workspaces/"+ws+"/deployments", deploy, &editor)
		if err != nil {
			t.Fatal(err)
		}
		var got intent.DeployResult
		if code != http.StatusOK || json.Unmarshal(body, &got) != nil || !got.Succeeded || len(got.Results) != 3 {
			t.Fatalf("deploy: %d %s", code, body)
		}
		for _, r := range got.Results {
			if r.Action != want || r.URL != "" {
				t.Errorf("deploy: %s %s %s (error %q), want %s and no url", r.Kind, r.Name, r.Action, r.Error, want)
			}
		}
	}
	// A dev project intent: an identity with no user is 403; a user on the
	// open-core licence this operator runs with is 400 (the project rules
	// require an enterprise operator).
	project := `{"apiVersion":"deploy.omnia.altairalabs.ai/v1","pack":{"project":{"id":"my-project"}},` +
		`"agents":[{"providers":[{"name":"default","ref":"local-mock"}],"facades":[{"type":"websocket","dataPlane":false}],"idleTimeout":"30m"}]}`
	noUser := authtest.Claims("", ws, ns, auth.RoleEditor, time.Now())
	for _, tc := range []struct {
		claims *auth.Claims
		want   int
		in     string
	}{
		{&noUser, http.StatusForbidden, "no user"},
		{&editor, http.StatusBadRequest, rules.DeployIntentProjectLicenseRuleID},
	} {
		code, body, err := callWith(http.MethodPost, "/api/v1/workspaces/"+ws+"/deployments", project, tc.claims)
		if err != nil {
			t.Fatal(err)
		}
		if code != tc.want || !strings.Contains(string(body), tc.in) {
			t.Errorf("project intent (sub %q): %d %s, want %d naming %q", tc.claims.Subject, code, body, tc.want, tc.in)
		}
	}
	ar := &v1alpha1.AgentRuntime{}
	if err := admin.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "support-bot"}, ar); err != nil {
		t.Fatalf("the deployed agent: %v", err)
	}
	if ar.Spec.PromptPackRef == nil || ar.Spec.PromptPackRef.Name != "support" || ar.Spec.PromptPackRef.Version != "1.0.0" {
		t.Errorf("the agent's promptPackRef: %+v, want support 1.0.0 (the leading v stripped)", ar.Spec.PromptPackRef)
	}
	if proto, err := negotiate(t, addr); err != nil || proto == "h2" {
		t.Errorf("the deploy API negotiated %q (%v); HTTP/2 must stay off", proto, err)
	}
}

// TestDeployAPINeedsKeys: the deploy API turned on without a JWKS file is a
// configuration error: the operator stops and says why.
func TestDeployAPINeedsKeys(t *testing.T) {
	needsAPIServer(t)
	port, err := controlplane.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	webhookPort, err := controlplane.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	// Not launch(): its cleanup stops a running operator, and this one
	// must exit by itself.
	op, err := controlplane.LaunchOperator(controlplane.OperatorOptions{
		Binary:      binary,
		Kubeconfig:  kubeconfig,
		CertDir:     env.WebhookInstallOptions.LocalServingCertDir,
		CAData:      env.WebhookInstallOptions.LocalServingCAData,
		WebhookPort: webhookPort,
		LogPath:     filepath.Join(t.TempDir(), "operator.log"),
		Args:        []string{"--deploy-api-bind-address", "127.0.0.1:" + strconv.Itoa(port)},
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-op.Exited():
	case <-time.After(time.Minute):
		op.Stop()
		t.Fatal("the operator kept running without --deploy-api-jwks-file")
	}
	if log := operatorLog(t, op); !strings.Contains(log, "needs --deploy-api-jwks-file or --deploy-api-jwks-url") {
		t.Fatalf("the log does not name the missing flag:\n%s", log)
	}
}

// TestDeployAPIJWKSURL: with --deploy-api-jwks-url the operator fetches the
// keys from an https server (here a local one, trusted through
// --deploy-api-jwks-ca-file) and accepts the tokens they sign.
func TestDeployAPIJWKSURL(t *testing.T) {
	needsAPIServer(t)
	signer := authtest.MustSigner("dash-url", "ES384")
	jwks, err := authtest.JWKS(signer)
	if err != nil {
		t.Fatal(err)
	}
	js := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(jwks) }))
	t.Cleanup(js.Close)
	caFile := filepath.Join(t.TempDir(), "jwks-ca.crt")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: js.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	port, err := controlplane.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	op := launch(t, "operator", env.WebhookInstallOptions.LocalServingCertDir,
		"--deploy-api-bind-address", addr, "--deploy-api-jwks-url", js.URL+"/jwks", "--deploy-api-jwks-ca-file", caFile)
	if err := op.WaitReady(time.Minute); err != nil {
		t.Fatal(err)
	}
	ns := namespace(t)
	ws := workspaceOf(t, ns)
	tok, err := signer.Mint(authtest.Claims("alice", ws, ns, auth.RoleViewer, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: caPool(t)}}}
	// The operator's cache catches up with the Workspace.
	eventually(t, 30*time.Second, "the profile with a token the JWKS URL's key signed", func() error {
		req, err := http.NewRequest(http.MethodGet, "https://"+addr+"/api/v1/workspaces/"+ws+"/deploy-profile", nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"workspace":"`+ws+`"`) {
			return fmt.Errorf("%d %s", resp.StatusCode, body)
		}
		return nil
	})
}

// workspaceOf creates a Workspace for namespace ns, named after it, as the
// deploy API requires one for every workspace it serves (its
// spec.namespace.name is the namespace a request acts in).
func workspaceOf(t *testing.T, ns string) string {
	t.Helper()
	if err := admin.Create(context.Background(), &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: ns},
		Spec: v1alpha1.WorkspaceSpec{Namespace: v1alpha1.WorkspaceNamespace{Name: ns}}}); err != nil {
		t.Fatal(err)
	}
	return ns
}
