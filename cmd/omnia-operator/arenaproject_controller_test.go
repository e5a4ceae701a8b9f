package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source/gittest"
)

// TestArenaFlagGatesArenaProjects: the ArenaProject controller runs only with --arena. An
// operator without it reconciles Providers and leaves a hosted project
// alone; one started with --arena and --workspace-content-path makes the
// project Ready with its default branch, as its ServiceAccount with the
// generated RBAC (launch fails the test on any forbidden request).
func TestArenaFlagGatesArenaProjects(t *testing.T) {
	needsAPIServer(t)
	certs := env.WebhookInstallOptions.LocalServingCertDir
	content := t.TempDir()
	ns := namespace(t)
	repo, err := git.PlainInit(source.HostedPath(content, ns, "evals"), false)
	if err != nil {
		t.Fatal(err)
	}
	head := gittest.Commit(t, repo, "first", map[string]gittest.File{"config.arena.yaml": {Content: "v: 1\n"}})
	gittest.Branch(t, repo, "main", head)
	gittest.Head(t, repo, "main")

	off := launch(t, "operator-arena-off", certs)
	if err := off.WaitReady(time.Minute); err != nil {
		t.Fatal(err)
	}
	mockProvider(t, ns, "before")
	eventually(t, time.Minute, "the leader reconciles a Provider", func() error { return hasStatus(ns, "before") })
	if err := admin.Create(context.Background(), &v1alpha1.ArenaProject{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "evals"}}); err != nil {
		t.Fatal(err)
	}
	// A Provider created after the project and reconciled is the sync
	// point: the controllers have seen the project's event by then.
	mockProvider(t, ns, "after")
	eventually(t, 30*time.Second, "the leader reconciles a later Provider", func() error { return hasStatus(ns, "after") })
	p := &v1alpha1.ArenaProject{}
	if err := admin.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "evals"}, p); err != nil {
		t.Fatal(err)
	}
	if p.Status.Phase != "" {
		t.Fatalf("without --arena the project got a status: %+v", p.Status)
	}
	off.Stop()

	on := launch(t, "operator-arena-on", certs, "--arena", "--workspace-content-path="+content)
	if err := on.WaitReady(time.Minute); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "the project is Ready with its default branch", func() error {
		if err := admin.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "evals"}, p); err != nil {
			return err
		}
		if p.Status.Phase != v1alpha1.ArenaProjectPhaseReady || p.Status.DefaultBranch != "main" || p.Status.HeadCommit != head.String() {
			return fmt.Errorf("status %+v", p.Status)
		}
		return nil
	})
}
