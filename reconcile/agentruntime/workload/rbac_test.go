package workload

import (
	"reflect"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// The facade's Role reaches only its own AgentRuntime.
func TestRoleReachesOnlyItsAgent(t *testing.T) {
	ar := agent()
	role := Role(ar)
	want := []rbacv1.PolicyRule{
		{APIGroups: []string{"omnia.altairalabs.ai"}, Resources: []string{"agentruntimes"}, ResourceNames: []string{"support"}, Verbs: []string{"get"}},
		{APIGroups: []string{"omnia.altairalabs.ai"}, Resources: []string{"agentruntimes/status"}, ResourceNames: []string{"support"}, Verbs: []string{"get", "patch"}},
	}
	if !reflect.DeepEqual(role.Rules, want) {
		t.Errorf("rules = %+v, want %+v", role.Rules, want)
	}
	rb := RoleBinding(ar, resolved())
	if rb.RoleRef != (rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "support-facade"}) {
		t.Errorf("roleRef = %+v", rb.RoleRef)
	}
	if want := []rbacv1.Subject{{Kind: "ServiceAccount", Name: "support-facade", Namespace: "team-a"}}; !reflect.DeepEqual(rb.Subjects, want) {
		t.Errorf("subjects = %+v", rb.Subjects)
	}
}

// TestRoleClientKeys: with externalAuth.clientKeys the Role lists and
// watches the namespace's Secrets, and only then; a custom facade, running
// the tenant's image, never gets it.
func TestRoleClientKeys(t *testing.T) {
	secrets := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"list", "watch"}}
	for _, tc := range []struct {
		name   string
		facade v1alpha1.AgentRuntimeFacadeType
		keys   bool
		want   bool
	}{
		{"websocket with client keys", v1alpha1.AgentRuntimeFacadeTypeWebSocket, true, true},
		{"websocket without", v1alpha1.AgentRuntimeFacadeTypeWebSocket, false, false},
		{"custom with client keys", v1alpha1.AgentRuntimeFacadeTypeCustom, true, false},
	} {
		ar := agent(func(a *v1alpha1.AgentRuntime) {
			a.Spec.Facades = []v1alpha1.AgentRuntimeFacade{{Type: tc.facade}}
			if tc.keys {
				a.Spec.ExternalAuth = &v1alpha1.AgentRuntimeExternalAuth{ClientKeys: &v1alpha1.AgentRuntimeClientKeys{}}
			}
		})
		rs := Role(ar).Rules
		got := len(rs) == 3 && reflect.DeepEqual(rs[2], secrets)
		if got != tc.want || (!tc.want && len(rs) != 2) {
			t.Errorf("%s: rules %+v, want Secrets list/watch %v", tc.name, rs, tc.want)
		}
	}
}

// Every object is ready for server-side apply: apiVersion and kind set, the
// agent's namespace, the spec's names, labels, and one controlling owner
// reference to the agent that blocks its deletion.
func TestObjectsForServerSideApply(t *testing.T) {
	ar := agent()
	d, _, err := Deployment(ar, resolved())
	if err != nil {
		t.Fatal(err)
	}
	type obj interface {
		metav1.Object
		GetObjectKind() schema.ObjectKind
	}
	for _, tc := range []struct {
		o    obj
		gvk  string
		name string
	}{
		{d, "apps/v1, Kind=Deployment", "support"},
		{Service(ar), "/v1, Kind=Service", "support"},
		{ServiceAccount(ar), "/v1, Kind=ServiceAccount", "support-facade"},
		{Role(ar), "rbac.authorization.k8s.io/v1, Kind=Role", "support-facade"},
		{RoleBinding(ar, resolved()), "rbac.authorization.k8s.io/v1, Kind=RoleBinding", "support-facade"},
	} {
		if got := tc.o.GetObjectKind().GroupVersionKind().String(); got != tc.gvk {
			t.Errorf("%s: GVK %q, want %q", tc.name, got, tc.gvk)
		}
		if tc.o.GetName() != tc.name || tc.o.GetNamespace() != "team-a" {
			t.Errorf("%s: got %s/%s", tc.gvk, tc.o.GetNamespace(), tc.o.GetName())
		}
		refs := tc.o.GetOwnerReferences()
		if len(refs) != 1 {
			t.Fatalf("%s: owner references %v", tc.gvk, refs)
		}
		ref := refs[0]
		if ref.APIVersion != "omnia.altairalabs.ai/v1alpha1" || ref.Kind != "AgentRuntime" || ref.Name != "support" || ref.UID != "uid-1" ||
			ref.Controller == nil || !*ref.Controller || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
			t.Errorf("%s: owner reference %+v", tc.gvk, ref)
		}
		if !reflect.DeepEqual(tc.o.GetLabels(), Labels(ar)) {
			t.Errorf("%s: labels %v", tc.gvk, tc.o.GetLabels())
		}
	}
}

// The agent's hidden and dev-intent labels reach its objects, not its pods
// (a visibility toggle must not roll them) and not its selectors.
func TestPropagatedLabels(t *testing.T) {
	ar := agent(func(ar *v1alpha1.AgentRuntime) {
		ar.Labels = map[string]string{"omnia.altairalabs.ai/hidden": "true", "omnia.altairalabs.ai/arena-project": "p1", "unrelated": "x"}
	})
	d, _, err := Deployment(ar, resolved())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []metav1.Object{d, Service(ar), ServiceAccount(ar), Role(ar), RoleBinding(ar, resolved())} {
		l := o.GetLabels()
		if l["omnia.altairalabs.ai/hidden"] != "true" || l["omnia.altairalabs.ai/arena-project"] != "p1" {
			t.Errorf("%s: labels %v lack the agent's hidden/arena-project labels", o.GetName(), l)
		}
		if _, ok := l["unrelated"]; ok {
			t.Errorf("%s: copied an unrelated label", o.GetName())
		}
	}
	if _, ok := d.Spec.Template.Labels["omnia.altairalabs.ai/hidden"]; ok {
		t.Error("the hidden label reached the pod template: toggling it would roll the pods")
	}
	if len(d.Spec.Selector.MatchLabels) != 2 {
		t.Errorf("selector = %v", d.Spec.Selector.MatchLabels)
	}
}
