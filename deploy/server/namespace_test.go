package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/deploy/server"
)

// writingDeployer writes what a deploy writes, as the operator: one
// ConfigMap in the caller's namespace, through the real API server.
type writingDeployer struct{ t *testing.T }

func (d writingDeployer) Deploy(ctx context.Context, c auth.Caller, _ []byte) server.Response {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "deployed-", Namespace: c.Namespace}}
	if err := k8s.Create(ctx, cm); err != nil {
		d.t.Errorf("the deployer's write in %s: %v", c.Namespace, err)
		return server.Response{Status: http.StatusInternalServerError}
	}
	return server.Response{Status: http.StatusOK, Body: intent.DeployResult{Succeeded: true, Results: []intent.ResourceResult{}}}
}

// plannerOf records the namespace each plan is made in.
type plannerOf struct{ namespaces chan string }

func (p plannerOf) Plan(_ context.Context, c auth.Caller, _ []byte) server.Response {
	p.namespaces <- c.Namespace
	return server.Response{Status: http.StatusOK, Body: struct{}{}}
}

func configMaps(t *testing.T, ns string) int {
	t.Helper()
	var list corev1.ConfigMapList
	if err := k8s.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, cm := range list.Items {
		if strings.HasPrefix(cm.Name, "deployed-") {
			n++
		}
	}
	return n
}

// TestTokenCannotPickTheNamespace: whoever mints
// tokens must not pick the namespace. A token for workspace A (an owner's)
// whose namespace claim is workspace B's namespace is refused with 403 on
// every route, and nothing is written to B; a token whose claim is A's own
// namespace writes in A. The namespace is Workspace A's spec.namespace.name.
func TestTokenCannotPickTheNamespace(t *testing.T) {
	nsA, nsB := newNamespace(t), newNamespace(t)
	newWorkspace(t, "tenant-a", nsA)
	newWorkspace(t, "tenant-b", nsB)
	planned := plannerOf{namespaces: make(chan string, 4)}
	a := start(t, server.Options{Deployer: writingDeployer{t}, Planner: planned})

	forged := token(t, signer, claims("mallory", "tenant-a", nsB, auth.RoleOwner))
	var messages []string
	for route, path := range paths("tenant-a") {
		r := a.do(t, methodOf(route), path, forged, []byte("{}"))
		if r.status != http.StatusForbidden {
			t.Errorf("%s with tenant-a's token claiming namespace %s: %d %s, want 403", route, nsB, r.status, r.body)
			continue
		}
		messages = append(messages, r.errorMessage(t))
	}
	if n := configMaps(t, nsB); n != 0 {
		t.Fatalf("%d objects written to workspace B's namespace %s by a token for workspace A", n, nsB)
	}
	select {
	case ns := <-planned.namespaces:
		t.Fatalf("a plan was made in %s for the forged token", ns)
	default:
	}
	// The same generic 403 as any other refusal: nothing says which check.
	r := a.do(t, http.MethodPost, "/api/v1/workspaces/tenant-a/deployments", token(t, signer, claims("alice", "tenant-a", nsA, auth.RoleViewer)), []byte("{}"))
	if r.status != http.StatusForbidden {
		t.Fatalf("a viewer deploying: %d", r.status)
	}
	for _, m := range messages {
		if m != r.errorMessage(t) {
			t.Errorf("403 message %q differs from the role refusal's %q", m, r.errorMessage(t))
		}
	}

	// The token of workspace A that claims A's namespace writes in A.
	good := token(t, signer, claims("alice", "tenant-a", nsA, auth.RoleEditor))
	if r := a.do(t, http.MethodPost, "/api/v1/workspaces/tenant-a/deployments", good, []byte("{}")); r.status != http.StatusOK {
		t.Fatalf("tenant-a's own token: %d %s", r.status, r.body)
	}
	if r := a.do(t, http.MethodPost, "/api/v1/workspaces/tenant-a/deploy/plan", good, []byte("{}")); r.status != http.StatusOK {
		t.Fatalf("tenant-a's own plan: %d %s", r.status, r.body)
	}
	if ns := <-planned.namespaces; ns != nsA {
		t.Errorf("the plan was made in %s, want workspace A's %s", ns, nsA)
	}
	if n, m := configMaps(t, nsA), configMaps(t, nsB); n != 1 || m != 0 {
		t.Errorf("objects written: %d in A's namespace, %d in B's; want 1 and 0", n, m)
	}
}

// TestWorkspaceNotFound: a token for a workspace no Workspace names is
// answered 404 on every route (docs/deploy-api.md, as the catalog answers
// it), and nothing is written to the namespace the token claims.
func TestWorkspaceNotFound(t *testing.T) {
	ns := newNamespace(t)
	a := start(t, server.Options{Deployer: writingDeployer{t}, Planner: plannerOf{namespaces: make(chan string, 4)}})
	tok := token(t, signer, claims("alice", "ghost", ns, auth.RoleOwner))
	for route, path := range paths("ghost") {
		r := a.do(t, methodOf(route), path, tok, []byte("{}"))
		if r.status != http.StatusNotFound || !strings.Contains(r.errorMessage(t), `workspace "ghost" not found`) {
			t.Errorf("%s for a workspace with no Workspace: %d %s, want 404", route, r.status, r.body)
		}
	}
	if n := configMaps(t, ns); n != 0 {
		t.Errorf("%d objects written to %s for a workspace that does not exist", n, ns)
	}
	// Authentication and authorization still come first.
	if r := a.do(t, http.MethodGet, "/api/v1/workspaces/ghost/deploy-profile", "", nil); r.status != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", r.status)
	}
	if r := a.do(t, http.MethodPost, "/api/v1/workspaces/ghost/deployments", token(t, signer, claims("alice", "ghost", ns, auth.RoleViewer)), []byte("{}")); r.status != http.StatusForbidden {
		t.Errorf("a viewer deploying: %d, want 403", r.status)
	}
}

// TestUnwatchedWorkspaceNotFound: with --watch-namespaces, a workspace
// whose namespace this installation does not watch is answered 404 on
// every route, as a missing one is, and nothing is written there; a
// workspace in a watched namespace is served.
func TestUnwatchedWorkspaceNotFound(t *testing.T) {
	watched, other := newNamespace(t), newNamespace(t)
	newWorkspace(t, "served", watched)
	newWorkspace(t, "elsewhere", other)
	a := start(t, server.Options{
		Deployer:          writingDeployer{t},
		Planner:           plannerOf{namespaces: make(chan string, 4)},
		WatchedNamespaces: []string{watched},
	})
	tok := token(t, signer, claims("alice", "elsewhere", other, auth.RoleOwner))
	for route, path := range paths("elsewhere") {
		r := a.do(t, methodOf(route), path, tok, []byte("{}"))
		if r.status != http.StatusNotFound || !strings.Contains(r.errorMessage(t), `workspace "elsewhere" not found`) {
			t.Errorf("%s for a workspace in an unwatched namespace: %d %s, want 404", route, r.status, r.body)
		}
	}
	if n := configMaps(t, other); n != 0 {
		t.Errorf("%d objects written to the unwatched namespace %s", n, other)
	}
	good := token(t, signer, claims("alice", "served", watched, auth.RoleEditor))
	if r := a.do(t, http.MethodPost, "/api/v1/workspaces/served/deployments", good, []byte("{}")); r.status != http.StatusOK {
		t.Fatalf("a workspace in a watched namespace: %d %s", r.status, r.body)
	}
}
