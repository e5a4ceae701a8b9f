package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// TestArenaFlagGatesArenaJobs: without --arena an ArenaJob is admitted and left alone
// (no run, no status) while the other controllers run; with --arena the
// operator, as its ServiceAccount with the generated RBAC, starts the job's
// one manual run and writes its status (launch fails the test on any
// permission the RBAC should have granted).
func TestArenaFlagGatesArenaJobs(t *testing.T) {
	needsAPIServer(t)
	ctx := context.Background()
	certs := env.WebhookInstallOptions.LocalServingCertDir
	ns := namespace(t)
	job := &v1alpha1.ArenaJob{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "eval"},
		Spec: v1alpha1.ArenaJobSpec{SourceRef: v1alpha1.LocalObjectReference{Name: "project"}}}
	if err := admin.Create(ctx, job); err != nil {
		t.Fatal(err)
	}
	runs := func() int {
		list := &v1alpha1.ArenaRunList{}
		if err := admin.List(ctx, list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		return len(list.Items)
	}

	off := launch(t, "operator-no-arena", certs)
	if err := off.WaitReady(time.Minute); err != nil {
		t.Fatal(err)
	}
	mockProvider(t, ns, "witness")
	eventually(t, time.Minute, "the leader reconciles a Provider", func() error { return hasStatus(ns, "witness") })
	j := &v1alpha1.ArenaJob{}
	if err := admin.Get(ctx, client.ObjectKeyFromObject(job), j); err != nil {
		t.Fatal(err)
	}
	if n := runs(); n != 0 || j.Status.ObservedGeneration != 0 || len(j.Status.Conditions) != 0 {
		t.Fatalf("without --arena the job was reconciled: %d runs, status %+v", n, j.Status)
	}
	off.Stop()

	on := launch(t, "operator-arena", certs, "--arena")
	if err := on.WaitReady(time.Minute); err != nil {
		t.Fatal(err)
	}
	eventually(t, 90*time.Second, "the job's manual run and status", func() error {
		run := &v1alpha1.ArenaRun{}
		if err := admin.Get(ctx, client.ObjectKey{Namespace: ns, Name: "eval-manual"}, run); err != nil {
			return err
		}
		if err := admin.Get(ctx, client.ObjectKeyFromObject(job), j); err != nil {
			return err
		}
		if j.Status.LastRunRef == nil || j.Status.ObservedGeneration != j.Generation {
			return fmt.Errorf("status %+v", j.Status)
		}
		return nil
	})
	if n := runs(); n != 1 {
		t.Fatalf("%d runs, want 1", n)
	}
}
