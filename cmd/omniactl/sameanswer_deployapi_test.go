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
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/auth/authtest"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/deploy/translate"
	"github.com/altairalabs/omnia/test/controlplane"
)

// resultFinding finds "[<rule ID>] <field>: " in a failed deploy result's
// error (deploy/apply joins the deny findings with "; ").
var resultFinding = regexp.MustCompile(`\[([a-z]+/[^\]]+)\] ([^:]+): `)

// TestSameAnswerDeployAPI is the deploy API's same-answer test: an intent agent
// the catalog denies gets the same rule IDs at the same fields
//
//	(a) from the deploy API (the operator binary, over TLS with a minted
//	    token): the agent's failed result in a 207, the rest applied;
//	(b) from omniactl check (in-process) on the equivalent AgentRuntime
//	    manifest: the one deploy/translate makes of the intent, which is
//	    what the deploy API evaluates and would write;
//	(c) from the API server, when that AgentRuntime is created directly
//	    with a client (strict field validation, the webhooks registered
//	    over TLS and served by the same operator).
//
// Each case is a rule an intent can express that no deployintent/* rule
// catches first (those answer 400 before the apply): CEL and OpenAPI rules
// the API server's schema enforces, and a Go rule its webhook enforces.
func TestSameAnswerDeployAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver, etcd and the operator")
	}
	cases := []struct {
		name  string
		agent func(a *intent.Agent)
		want  string // "<rule ID> <field>"
		// stage is where the API server refuses: its schema (OpenAPI and
		// CEL) or the webhook (a Go rule).
		stage string
	}{
		{"a facade with both planes off (CEL)", func(a *intent.Agent) {
			a.Facades = []intent.Facade{{Type: "websocket", ManagementPlane: ptr.To(false), DataPlane: ptr.To(false)}}
		}, "agentruntime/data-plane-needs-management-plane spec.facades[0].dataPlane", stageSchema},
		{"two facades of one type (CEL)", func(a *intent.Agent) {
			a.Facades = []intent.Facade{{Type: "websocket"}, {Type: "websocket"}}
		}, "agentruntime/facade-types-unique spec.facades", stageSchema},
		{"negative replicas (an OpenAPI minimum)", func(a *intent.Agent) {
			a.Runtime = &intent.Runtime{Replicas: ptr.To[int32](-1)}
		}, "agentruntime/schema:spec.runtime.replicas:minimum spec.runtime.replicas", stageSchema},
		{"a rollout pause that is not a duration (a Go rule: the webhook refuses it)", func(a *intent.Agent) {
			a.Rollout = &intent.Rollout{Steps: []intent.RolloutStep{{SetWeight: ptr.To[int32](10)}, {PauseDuration: "2mins"}}}
		}, "agentruntime/duration-format spec.rollout.steps[1].pause.duration", stageWebhook},
	}

	dir := t.TempDir()
	signer := authtest.MustSigner("dash", "ES256")
	jwks := filepath.Join(dir, "jwks.json")
	if err := authtest.WriteJWKS(jwks, signer); err != nil {
		t.Fatal(err)
	}
	port, err := controlplane.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	env, op, err := controlplane.WithOperator(controlplane.Options{}, dir,
		"--deploy-api-bind-address", addr, "--deploy-api-jwks-file", jwks)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		op.Stop()
		if err := env.Stop(); err != nil {
			t.Logf("stopping the control plane: %v", err)
		}
	}()
	c, err := client.New(env.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ns := "same-answer-deploy"
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	// The deploy API acts in the Workspace's namespace: workspace acme's.
	workspace := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": v1alpha1.GroupVersion.String(), "kind": "Workspace",
		"metadata": map[string]any{"name": "acme"},
		"spec":     map[string]any{"namespace": map[string]any{"name": ns}},
	}}
	if err := c.Create(ctx, workspace); err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(env.WebhookInstallOptions.LocalServingCAData) {
		t.Fatal("no webhook CA")
	}
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	tok, err := signer.Mint(authtest.Claims("alice", "acme", ns, auth.RoleEditor, time.Now()))
	if err != nil {
		t.Fatal(err)
	}

	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			good := intent.Agent{Name: fmt.Sprintf("good-%d", i), Providers: []intent.AgentProvider{{Name: "default", Ref: "mock"}}}
			bad := intent.Agent{Name: fmt.Sprintf("bad-%d", i), Providers: []intent.AgentProvider{{Name: "default", Ref: "mock"}}}
			tc.agent(&bad)
			in := intent.DeployIntent{APIVersion: intent.APIVersion,
				Pack:   intent.Pack{Name: "support", Version: "1.0.0", Content: `{"id": "support", "version": "1.0.0"}`},
				Agents: []intent.Agent{good, bad}}

			// (a) The deploy API.
			body, err := json.Marshal(in)
			if err != nil {
				t.Fatal(err)
			}
			var res intent.DeployResult
			status := postIntent(t, hc, addr, tok, body, &res)
			if status != http.StatusMultiStatus {
				t.Fatalf("deploy API: %d %+v, want 207", status, res)
			}
			var api []string
			for _, r := range res.Results {
				switch {
				case r.Name == bad.Name && r.Action == intent.ActionFailed:
					for _, m := range resultFinding.FindAllStringSubmatch(r.Error, -1) {
						api = append(api, m[1]+" "+m[2])
					}
				case r.Action == intent.ActionFailed:
					t.Errorf("deploy API: %s %s failed too: %s", r.Kind, r.Name, r.Error)
				}
			}
			sort.Strings(api)

			// (b) omniactl check on the AgentRuntime the intent makes.
			desired := agentManifest(t, in, ns, bad.Name)
			code, offline := omniactlCheck(t, ctx, dir, 1000+i, desired)
			if code != exitDenied {
				t.Errorf("omniactl check exited %d, want %d", code, exitDenied)
			}
			var check []string
			for _, l := range [][]string{offline.strict, offline.schema, offline.webhook} {
				check = append(check, l...)
			}
			sort.Strings(check)

			// (c) The API server, creating that AgentRuntime directly.
			u := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(desired)}
			serverErr := c.Create(ctx, u, client.FieldValidation("Strict"))
			stage, server := serverAnswer(t, "AgentRuntime", serverErr)
			offlineStage, first := offline.first()

			if stage != tc.stage {
				t.Errorf("the API server refused at %s, want %s: %v", stage, tc.stage, serverErr)
			}
			want := []string{tc.want}
			if !slices.Equal(api, want) || !slices.Equal(check, want) || !slices.Equal(server, want) || stage != offlineStage || !slices.Equal(first, want) {
				t.Errorf("different answers, want %v:\n  deploy API (207): %v\n  omniactl check: %v (first stage %s: %v)\n  API server (%s): %v\n  server error: %v",
					want, api, check, offlineStage, first, stage, server, serverErr)
			}
		})
	}
}

// postIntent POSTs an intent to the deploy API over TLS and decodes the
// result.
func postIntent(t *testing.T, hc *http.Client, addr, tok string, body []byte, out *intent.DeployResult) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "https://"+addr+"/api/v1/workspaces/acme/deployments", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	var (
		resp *http.Response
		data []byte
	)
	// The listener is up once /readyz says so; retry a refused connection
	// briefly all the same, and a 404 while the operator's cache has yet to
	// see the Workspace.
	if werr := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		req.Body = io.NopCloser(bytes.NewReader(body))
		resp, err = hc.Do(req)
		if err == nil && resp.StatusCode == http.StatusNotFound {
			_ = resp.Body.Close()
			return false, nil
		}
		return err == nil, nil
	}); werr != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if data, err = io.ReadAll(resp.Body); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("deploy API: %d %s", resp.StatusCode, strings.TrimSpace(string(data)))
	}
	return resp.StatusCode
}

// agentManifest is the AgentRuntime deploy/translate makes of the intent's
// agent name, as a manifest: apiVersion and kind, no status.
func agentManifest(t *testing.T, in intent.DeployIntent, ns, name string) map[string]any {
	t.Helper()
	for _, a := range translate.Translate(&in, ns).Agents {
		if a.Name != name {
			continue
		}
		if a.Err != nil {
			t.Fatalf("translate %s: %v", name, a.Err)
		}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(a.Desired)
		if err != nil {
			t.Fatal(err)
		}
		m["apiVersion"], m["kind"] = v1alpha1.GroupVersion.String(), "AgentRuntime"
		delete(m, "status")
		if md, ok := m["metadata"].(map[string]any); ok {
			delete(md, "creationTimestamp")
		}
		return m
	}
	t.Fatalf("translate made no agent %s", name)
	return nil
}
