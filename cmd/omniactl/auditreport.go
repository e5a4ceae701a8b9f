package main

import (
	"context"
	"fmt"
	"io"
	"time"

	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/altairalabs/omnia/policies/reports"
)

// omniactl audit --report writes the audit as OpenReports, built by
// policies/reports as the operator's background audit builds them (one
// Report omnia-audit per namespace, one ClusterReport omnia-audit), and
// writes each only when its content changed (reports.Equal), so running it
// again on an unchanged cluster writes nothing.
//
// Scope: with -A every namespace's Report and the ClusterReport (policies
// and cluster-scoped objects) are written, and an omnia-audit Report of a
// namespace that no longer holds an audited object is deleted. With -n only
// that namespace's Report is written (or deleted when it holds nothing):
// the ClusterReport needs the cluster-scoped objects a namespaced audit
// does not judge.

var (
	openReportsVersion     = schema.GroupVersion{Group: openreportsv1alpha1.GroupName, Version: "v1alpha1"}
	reportsResource        = openReportsVersion.WithResource("reports")
	clusterReportsResource = openReportsVersion.WithResource("clusterreports")
)

// reportedKinds are the kinds the reports hold: those the operator's
// webhooks validate and a ValidationPolicy may match (the
// v1alpha1.PolicyMatchKind enum), the kinds the background audit reports.
// Reporting the same kinds makes omniactl's reports and the operator's the
// same for the same cluster, so neither rewrites the other's. The other
// kinds (Workspace, ValidationPolicy, …) are still judged and printed.
var reportedKinds = map[string]bool{
	"AgentRuntime": true, "ArenaJob": true, "ArenaRun": true, "PromptPack": true, "Provider": true, "ToolRegistry": true,
}

// reportWrites counts what --report did.
type reportWrites struct{ created, updated, deleted, unchanged int }

// reportInput turns the audit into the report builder's input.
func reportInput(rep *report, states []policyState, now time.Time) reports.Input {
	in := reports.Input{Now: now}
	for _, r := range rep.Results {
		if !reportedKinds[r.Kind] {
			continue
		}
		in.Objects = append(in.Objects, reports.Object{
			APIVersion: r.APIVersion, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, UID: types.UID(r.UID),
			Findings: r.Findings, Rules: r.Applied,
		})
	}
	for _, s := range states {
		p := reports.Policy{Name: s.name, UID: s.uid, Errors: s.compiled.Errors}
		if len(s.compiled.Errors) == 0 {
			for _, r := range s.compiled.Rules {
				p.Rules = append(p.Rules, r.ID)
			}
		}
		in.Policies = append(in.Policies, p)
	}
	return in
}

// writeClusterReports builds and writes the reports of one audit.
func writeClusterReports(ctx context.Context, dyn dynamic.Interface, rep *report, states []policyState, scope auditScope, stderr io.Writer) error {
	set := reports.Build(reportInput(rep, states, time.Now()))
	var w reportWrites
	keep := map[string]bool{}
	for _, r := range set.Namespaced {
		if !scope.all && r.Namespace != scope.namespace {
			continue
		}
		keep[r.Namespace] = true
		if err := writeReportObject(ctx, dyn.Resource(reportsResource).Namespace(r.Namespace), r, func(cur *unstructured.Unstructured) (bool, error) {
			old := &openreportsv1alpha1.Report{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(cur.Object, old); err != nil {
				return false, err
			}
			return reports.Equal(old, r), nil
		}, &w); err != nil {
			return fmt.Errorf("writing Report %s/%s: %w", r.Namespace, r.Name, err)
		}
	}
	if err := deleteStaleReports(ctx, dyn, scope, keep, &w); err != nil {
		return err
	}
	if scope.all {
		c := set.Cluster
		if err := writeReportObject(ctx, dyn.Resource(clusterReportsResource), c, func(cur *unstructured.Unstructured) (bool, error) {
			old := &openreportsv1alpha1.ClusterReport{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(cur.Object, old); err != nil {
				return false, err
			}
			return reports.ClusterEqual(old, c), nil
		}, &w); err != nil {
			return fmt.Errorf("writing ClusterReport %s: %w", c.Name, err)
		}
	}
	fmt.Fprintf(stderr, "omniactl audit: reports: %d created, %d updated, %d deleted, %d unchanged\n", w.created, w.updated, w.deleted, w.unchanged)
	return nil
}

// writeReportObject creates want, or updates the current object when
// same says its content differs; a report the audit does not own (no
// managed-by label) is left alone and is an error.
func writeReportObject(ctx context.Context, ri dynamic.ResourceInterface, want runtime.Object, same func(*unstructured.Unstructured) (bool, error), w *reportWrites) error {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(want)
	if err != nil {
		return err
	}
	desired := &unstructured.Unstructured{Object: m}
	cur, err := ri.Get(ctx, desired.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		if _, err := ri.Create(ctx, desired, metav1.CreateOptions{}); err != nil {
			return err
		}
		w.created++
		return nil
	}
	if err != nil {
		return err
	}
	if cur.GetLabels()[reports.ManagedByLabel] != reports.ManagedBy {
		return fmt.Errorf("exists without the label %s=%s: not Omnia's, left alone", reports.ManagedByLabel, reports.ManagedBy)
	}
	unchanged, err := same(cur)
	if err != nil {
		return err
	}
	if unchanged {
		w.unchanged++
		return nil
	}
	desired.SetResourceVersion(cur.GetResourceVersion())
	if _, err := ri.Update(ctx, desired, metav1.UpdateOptions{}); err != nil {
		return err
	}
	w.updated++
	return nil
}

// deleteStaleReports deletes the omnia-audit Reports in scope of
// namespaces without a result now, as the background audit does.
func deleteStaleReports(ctx context.Context, dyn dynamic.Interface, scope auditScope, keep map[string]bool, w *reportWrites) error {
	ri := dyn.Resource(reportsResource).Namespace(scope.listNamespace())
	opts := metav1.ListOptions{LabelSelector: reports.ManagedByLabel + "=" + reports.ManagedBy, FieldSelector: "metadata.name=" + reports.Name, Limit: listPageSize}
	// Bounded by the namespaces: one omnia-audit Report each.
	for {
		list, err := ri.List(ctx, opts)
		if err != nil {
			return fmt.Errorf("listing omnia-audit Reports in %s: %w", scope, err)
		}
		for _, r := range list.Items {
			if keep[r.GetNamespace()] {
				continue
			}
			err := dyn.Resource(reportsResource).Namespace(r.GetNamespace()).Delete(ctx, r.GetName(), metav1.DeleteOptions{
				Preconditions: metav1.NewUIDPreconditions(string(r.GetUID())),
			})
			if err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("deleting Report %s/%s: %w", r.GetNamespace(), r.GetName(), err)
			}
			w.deleted++
		}
		if opts.Continue = list.GetContinue(); opts.Continue == "" {
			return nil
		}
	}
}
