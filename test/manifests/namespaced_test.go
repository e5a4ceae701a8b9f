package manifests

import (
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/yaml"
)

// grants lists a role's rules as "group/resource verb" strings, one per
// pair, so two roles can be compared however their rules are grouped.
func grants(rules []rbacv1.PolicyRule) map[string]bool {
	out := map[string]bool{}
	for _, r := range rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					out[g+"/"+res+" "+v] = true
				}
			}
		}
	}
	return out
}

// all decodes every resource of kind.
func all[T any](t *testing.T, m resmap.ResMap, kind string) []T {
	t.Helper()
	var out []T
	for _, r := range m.Resources() {
		if r.GetKind() != kind {
			continue
		}
		data, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		var v T
		if err := yaml.UnmarshalStrict(data, &v); err != nil {
			t.Fatalf("%s %s: %v", kind, r.GetName(), err)
		}
		out = append(out, v)
	}
	return out
}

// TestNamespacedBuilds: `kubectl kustomize config/namespaced` gives an
// operator that can touch Secrets, Deployments and the namespaced Omnia
// kinds only in the namespaces it watches, grants together exactly what the
// cluster-wide install grants, and whose webhooks, flag and RoleBindings
// name the same namespaces.
func TestNamespacedBuilds(t *testing.T) {
	m := build(t, "config/namespaced")

	d := &appsv1.Deployment{}
	object(t, m, "Deployment", "omnia-operator", d)
	var watched []string
	for _, a := range d.Spec.Template.Spec.Containers[0].Args {
		if v, ok := strings.CutPrefix(a, "--watch-namespaces="); ok {
			watched = strings.Split(v, ",")
		}
	}
	if len(watched) == 0 {
		t.Fatalf("the operator has no --watch-namespaces: %v", d.Spec.Template.Spec.Containers[0].Args)
	}

	roles := map[string]rbacv1.ClusterRole{}
	for _, r := range all[rbacv1.ClusterRole](t, m, "ClusterRole") {
		roles[r.Name] = r
	}
	if _, ok := roles["omnia-operator"]; ok {
		t.Error("the cluster-wide ClusterRole omnia-operator is still installed")
	}

	t.Run("nothing namespaced is granted cluster-wide", func(t *testing.T) {
		for _, b := range all[rbacv1.ClusterRoleBinding](t, m, "ClusterRoleBinding") {
			role, ok := roles[b.RoleRef.Name]
			if !ok {
				t.Errorf("ClusterRoleBinding %s binds ClusterRole %s, not in the build", b.Name, b.RoleRef.Name)
				continue
			}
			for g := range grants(role.Rules) {
				for _, kind := range []string{"/secrets ", "apps/deployments ", "omnia.altairalabs.ai/providers ", "omnia.altairalabs.ai/agentruntimes ", "rbac.authorization.k8s.io/roles "} {
					if strings.HasPrefix(g, kind) {
						t.Errorf("ClusterRoleBinding %s grants %s cluster-wide", b.Name, g)
					}
				}
			}
		}
	})

	t.Run("every watched namespace and the operator's own is bound", func(t *testing.T) {
		bound := map[string]bool{}
		for _, b := range all[rbacv1.RoleBinding](t, m, "RoleBinding") {
			if b.RoleRef.Kind == "ClusterRole" && b.RoleRef.Name == "omnia-operator-namespaced" &&
				len(b.Subjects) == 1 && b.Subjects[0].Name == serviceAccount && b.Subjects[0].Namespace == namespace {
				bound[b.Namespace] = true
			}
		}
		for _, ns := range append([]string{namespace}, watched...) {
			if !bound[ns] {
				t.Errorf("no RoleBinding of omnia-operator-namespaced to the operator in %s (bound: %v)", ns, bound)
			}
		}
		for ns := range bound {
			if ns != namespace && !slices.Contains(watched, ns) {
				t.Errorf("namespace %s is bound but not in --watch-namespaces %v", ns, watched)
			}
		}
	})

	t.Run("the two roles grant what the cluster-wide install grants", func(t *testing.T) {
		def := &rbacv1.ClusterRole{}
		object(t, build(t, "config/default"), "ClusterRole", "omnia-operator", def)
		want := grants(def.Rules)
		got := grants(roles["omnia-operator-cluster-reads"].Rules)
		for g := range grants(roles["omnia-operator-namespaced"].Rules) {
			got[g] = true
		}
		if len(want) == 0 {
			t.Fatal("the default ClusterRole grants nothing")
		}
		for g := range want {
			if !got[g] {
				t.Errorf("%s is granted by config/default but not by config/namespaced", g)
			}
		}
		for g := range got {
			if !want[g] {
				t.Errorf("%s is granted by config/namespaced but not by config/default", g)
			}
		}
	})

	t.Run("every webhook selects the watched namespaces", func(t *testing.T) {
		vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		object(t, m, "ValidatingWebhookConfiguration", "validating-webhook-configuration", vwc)
		if len(vwc.Webhooks) == 0 {
			t.Fatal("no webhooks")
		}
		for _, w := range vwc.Webhooks {
			sel := w.NamespaceSelector
			if sel == nil || len(sel.MatchLabels) != 0 || len(sel.MatchExpressions) != 1 ||
				sel.MatchExpressions[0].Key != "kubernetes.io/metadata.name" ||
				sel.MatchExpressions[0].Operator != "In" ||
				!slices.Equal(sel.MatchExpressions[0].Values, watched) {
				t.Errorf("webhook %s namespaceSelector %+v, want kubernetes.io/metadata.name In %v", w.Name, sel, watched)
			}
		}
	})
}
