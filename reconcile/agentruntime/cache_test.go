package agentruntime

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// TestCacheSelectsTheOperatorsChildren: the cache's label selector for
// every child kind matches the labels the builders set, and nothing else.
func TestCacheSelectsTheOperatorsChildren(t *testing.T) {
	byObject := CacheByObject()
	if len(byObject) != 6 {
		t.Fatalf("%d kinds selected, want 6 (Deployment, Service, ServiceAccount, Role, RoleBinding, HPA)", len(byObject))
	}
	for obj, o := range byObject {
		if !o.Label.Matches(labels.Set(workload.ObjectMeta(agent(), "support").Labels)) {
			t.Errorf("%T: selector %s does not match the builders' labels", obj, o.Label)
		}
		if o.Label.Matches(labels.Set{workload.LabelName: workload.LabelNameValue}) {
			t.Errorf("%T: selector %s matches an object the operator did not build", obj, o.Label)
		}
	}
}

// TestDeploymentCacheKeepsOnlyTheReplicasOwnership: the Deployment cache
// transform drops other managers' entries and cuts the operator's down to
// whether it owns spec.replicas, which is all handOffReplicas reads.
func TestDeploymentCacheKeepsOnlyTheReplicasOwnership(t *testing.T) {
	entry := func(manager, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationApply, FieldsV1: metav1.NewFieldsV1(fields)}
	}
	withReplicas := `{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:replicas":{},"f:template":{"f:spec":{"f:containers":{}}}}}`
	withoutReplicas := `{"f:spec":{"f:template":{"f:spec":{"f:containers":{}}}}}`
	for _, tc := range []struct {
		name     string
		entries  []metav1.ManagedFieldsEntry
		wantOwns bool
		wantKept int
	}{
		{"operator owns replicas", []metav1.ManagedFieldsEntry{entry(FieldManager, withReplicas), entry("kube-controller-manager", `{"f:status":{}}`)}, true, 1},
		{"autoscaler owns replicas", []metav1.ManagedFieldsEntry{entry(FieldManager, withoutReplicas), entry("kube-controller-manager", `{"f:spec":{"f:replicas":{}}}`)}, false, 1},
		{"no operator entry", []metav1.ManagedFieldsEntry{entry("kubectl", withReplicas)}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{ManagedFields: tc.entries}}
			if before := managerOwnsReplicas(d, FieldManager); before != tc.wantOwns {
				t.Fatalf("before the transform: owns %v, want %v", before, tc.wantOwns)
			}
			out, err := keepOwnManagedFields(d)
			if err != nil {
				t.Fatal(err)
			}
			got := out.(*appsv1.Deployment)
			if len(got.ManagedFields) != tc.wantKept {
				t.Errorf("kept %d entries, want %d", len(got.ManagedFields), tc.wantKept)
			}
			if owns := managerOwnsReplicas(got, FieldManager); owns != tc.wantOwns {
				t.Errorf("after the transform: owns %v, want %v", owns, tc.wantOwns)
			}
			for _, e := range got.ManagedFields {
				if n := len(e.FieldsV1.GetRawBytes()); n > len(replicasOnly) {
					t.Errorf("entry of %s keeps %d bytes of fields", e.Manager, n)
				}
			}
		})
	}
}

// TestDeploymentCacheDropsThePodSpec: the cached Deployment keeps what the
// controller reads (the applied hash, replicas, status, the operator's
// replicas ownership) and no pod spec.
func TestDeploymentCacheDropsThePodSpec(t *testing.T) {
	d, _, err := workload.Deployment(agent(), resolved())
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Spec.Template.Spec.Containers) == 0 {
		t.Fatal("the builder made no containers: the test would prove nothing")
	}
	d.Annotations = map[string]string{AppliedHashAnnotation: "h"}
	d.Status.AvailableReplicas = 1
	out, err := deploymentCacheTransform(d)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*appsv1.Deployment)
	if len(got.Spec.Template.Spec.Containers) != 0 || len(got.Spec.Template.Spec.Volumes) != 0 {
		t.Errorf("the cached Deployment keeps its pod spec: %d containers", len(got.Spec.Template.Spec.Containers))
	}
	if got.Annotations[AppliedHashAnnotation] != "h" || got.Spec.Replicas == nil || got.Status.AvailableReplicas != 1 {
		t.Errorf("the cached Deployment lost what the controller reads: %+v", got.ObjectMeta.Annotations)
	}
}
