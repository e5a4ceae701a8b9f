package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/auth/authtest"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/test/controlplane"
)

// BenchmarkDeployAPI measures the deploy API as clients see it: the
// operator binary (as its ServiceAccount, with the generated RBAC) serving
// the deploy API over TLS against the real API server (envtest's
// kube-apiserver and etcd), each request carrying a freshly minted token
// and going over a kept-alive HTTPS connection. ns/op is the latency of
// one request:
//
//	plan             a kit with two provider bindings (one resolved, one
//	                 not), answered from the operator's cache;
//	deploy-5-agents  a published pack with a tool handler, its credential
//	                 and 5 agents into a fresh namespace: 9 objects created
//	                 (ConfigMap, PromptPack, ToolRegistry, Secret, 5
//	                 AgentRuntimes), each checked with the catalog first;
//	redeploy-5-agents-unchanged  the same intent again: every object read
//	                 fresh, compared and left alone (no write).
//
// docs/deploy-api.md § Performance has the figures; `make bench` runs it.
func BenchmarkDeployAPI(b *testing.B) {
	if testing.Short() || env == nil {
		b.Skip("starts kube-apiserver, etcd and the operator")
	}
	dir := b.TempDir()
	signer := authtest.MustSigner("dash-bench", "ES256")
	jwks := filepath.Join(dir, "jwks.json")
	if err := authtest.WriteJWKS(jwks, signer); err != nil {
		b.Fatal(err)
	}
	ports := [2]int{}
	for i := range ports {
		p, err := controlplane.FreePort()
		if err != nil {
			b.Fatal(err)
		}
		ports[i] = p
	}
	addr := "127.0.0.1:" + strconv.Itoa(ports[0])
	op, err := controlplane.LaunchOperator(controlplane.OperatorOptions{
		Binary: binary, Kubeconfig: kubeconfig,
		CertDir: env.WebhookInstallOptions.LocalServingCertDir, CAData: env.WebhookInstallOptions.LocalServingCAData,
		WebhookPort: ports[1], LogPath: filepath.Join(dir, "operator.log"),
		Args: []string{"--deploy-api-bind-address", addr, "--deploy-api-jwks-file", jwks},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer op.Stop()
	if err := op.WaitReady(time.Minute); err != nil {
		b.Fatal(err)
	}

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(env.WebhookInstallOptions.LocalServingCAData)
	hc := &http.Client{Timeout: time.Minute, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	ctx := context.Background()
	seq := 0
	newNamespace := func() string {
		seq++
		name := fmt.Sprintf("bench-deploy-%d-%d", time.Now().UnixNano()%100000, seq)
		if err := admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
			b.Fatal(err)
		}
		// The deploy API acts in the Workspace's namespace: one
		// Workspace per namespace, named after it.
		if err := admin.Create(ctx, &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: v1alpha1.WorkspaceSpec{Namespace: v1alpha1.WorkspaceNamespace{Name: name}}}); err != nil {
			b.Fatal(err)
		}
		if err := admin.Create(ctx, &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: name, Name: "local-mock"},
			Spec: v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeMock}}); err != nil {
			b.Fatal(err)
		}
		// Until the operator's cache holds the Workspace, its routes are
		// 404.
		tok, err := signer.Mint(authtest.Claims("bench", name, name, auth.RoleViewer, time.Now()))
		if err != nil {
			b.Fatal(err)
		}
		if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			req, err := http.NewRequest(http.MethodGet, "https://"+addr+"/api/v1/workspaces/"+name+"/deploy-profile", nil)
			if err != nil {
				return false, err
			}
			req.Header.Set("Authorization", "Bearer "+tok)
			resp, err := hc.Do(req)
			if err != nil {
				return false, nil
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			return resp.StatusCode == http.StatusOK, nil
		}); err != nil {
			b.Fatalf("the deploy API does not serve workspace %s: %v", name, err)
		}
		return name
	}
	post := func(path, ns string, body []byte, want int) []byte {
		tok, err := signer.Mint(authtest.Claims("bench", ns, ns, auth.RoleEditor, time.Now()))
		if err != nil {
			b.Fatal(err)
		}
		req, err := http.NewRequest(http.MethodPost, "https://"+addr+path, bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		if err != nil {
			b.Fatal(err)
		}
		if resp.StatusCode != want {
			b.Fatalf("%s: %d %s, want %d", path, resp.StatusCode, out, want)
		}
		return out
	}

	b.Run("plan", func(b *testing.B) {
		ns := newNamespace()
		body := []byte(`{"deployConfig":{"providers":[{"name":"default","ref":"local-mock"},{"name":"embed","ref":"nope","role":"embedding"}]}}`)
		// Wait for the cache to see the Provider, so every iteration
		// answers the same plan.
		var p intent.PlanResponse
		if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			if err := json.Unmarshal(post("/api/v1/workspaces/"+ns+"/deploy/plan", ns, body, http.StatusOK), &p); err != nil {
				return false, err
			}
			return len(p.Providers) == 2 && p.Providers[0].Resolved, nil
		}); err != nil {
			b.Fatalf("the plan never resolved the Provider: %v (%+v)", err, p)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			post("/api/v1/workspaces/"+ns+"/deploy/plan", ns, body, http.StatusOK)
		}
	})

	intentBody := benchIntent(b, 5)
	b.Run("deploy-5-agents", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			ns := newNamespace()
			b.StartTimer()
			var res intent.DeployResult
			if err := json.Unmarshal(post("/api/v1/workspaces/"+ns+"/deployments", ns, intentBody, http.StatusOK), &res); err != nil {
				b.Fatal(err)
			}
			if len(res.Results) != 9 || res.Results[8].Action != intent.ActionCreated {
				b.Fatalf("deploy: %+v", res)
			}
		}
	})
	b.Run("redeploy-5-agents-unchanged", func(b *testing.B) {
		ns := newNamespace()
		post("/api/v1/workspaces/"+ns+"/deployments", ns, intentBody, http.StatusOK)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			var res intent.DeployResult
			if err := json.Unmarshal(post("/api/v1/workspaces/"+ns+"/deployments", ns, intentBody, http.StatusOK), &res); err != nil {
				b.Fatal(err)
			}
			for _, r := range res.Results {
				if r.Action != intent.ActionUnchanged {
					b.Fatalf("redeploy: %s %s %s", r.Kind, r.Name, r.Action)
				}
			}
		}
	})
}

// benchIntent is a published pack with one tool handler, its credential and
// n agents.
func benchIntent(b *testing.B, n int) []byte {
	in := intent.DeployIntent{
		APIVersion: intent.APIVersion,
		Pack:       intent.Pack{Name: "support", Version: "v1.0.0", Content: `{"id": "support", "version": "1.0.0"}`},
		Tools: &intent.Tools{Handlers: []intent.Handler{{
			Name: "lookup", Type: intent.HandlerHTTP,
			Tool:       json.RawMessage(`{"name": "lookup", "description": "looks up an order", "inputSchema": {"type": "object"}}`),
			HTTPConfig: json.RawMessage(`{"endpoint": "http://127.0.0.1:9/lookup", "headersFromSecret": {"X-Api-Key": {"name": "x", "key": "LOOKUP_TOKEN"}}}`),
		}}},
		Credentials: &intent.Credentials{Data: map[string]string{"LOOKUP_TOKEN": "bench-token"}},
	}
	for i := 0; i < n; i++ {
		in.Agents = append(in.Agents, intent.Agent{Name: fmt.Sprintf("agent-%d", i),
			Providers: []intent.AgentProvider{{Name: "default", Ref: "local-mock"}}})
	}
	body, err := json.Marshal(in)
	if err != nil {
		b.Fatal(err)
	}
	return body
}
