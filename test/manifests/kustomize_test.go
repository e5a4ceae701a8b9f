// Package manifests builds the kustomizations under config/ exactly as
// `kubectl kustomize` does (kustomize's krusty, the library kubectl embeds)
// and checks the install they produce.
package manifests

import (
	"path/filepath"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/test/controlplane"
)

const (
	namespace      = "omnia-system"
	serviceAccount = "omnia-operator"
)

func build(t *testing.T, dir string) resmap.ResMap {
	t.Helper()
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), filepath.Join(root, dir))
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	return m
}

// object decodes the one resource of kind and name into out.
func object(t *testing.T, m resmap.ResMap, kind, name string, out any) {
	t.Helper()
	var found []string
	for _, r := range m.Resources() {
		if r.GetKind() != kind || r.GetName() != name {
			continue
		}
		data, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		found = append(found, string(data))
	}
	if len(found) != 1 {
		t.Fatalf("%d %s %q in the build, want 1", len(found), kind, name)
	}
	if err := yaml.UnmarshalStrict([]byte(found[0]), out); err != nil {
		t.Fatalf("%s %s: %v", kind, name, err)
	}
}

// TestDefaultBuilds: `kubectl kustomize config/default` builds, and the
// install it gives runs the operator highly available, least-privileged and
// hardened.
func TestDefaultBuilds(t *testing.T) {
	m := build(t, "config/default")

	for _, r := range m.Resources() {
		if r.GetKind() == "Namespace" || r.GetKind() == "CustomResourceDefinition" ||
			r.GetKind() == "ClusterRole" || r.GetKind() == "ClusterRoleBinding" ||
			r.GetKind() == "ValidatingWebhookConfiguration" {
			continue
		}
		if r.GetNamespace() != namespace {
			t.Errorf("%s %s is in namespace %q, want %s", r.GetKind(), r.GetName(), r.GetNamespace(), namespace)
		}
	}

	t.Run("every generated CRD", func(t *testing.T) {
		root, _ := controlplane.RepoRoot()
		files, err := filepath.Glob(filepath.Join(root, "config", "crd", "bases", "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var crds int
		for _, r := range m.Resources() {
			if r.GetKind() == "CustomResourceDefinition" {
				crds++
			}
		}
		if crds != len(files) || crds == 0 {
			t.Errorf("%d CRDs in the build, %d files in config/crd/bases: list each in config/crd/kustomization.yaml", crds, len(files))
		}
	})

	t.Run("Deployment", func(t *testing.T) {
		d := &appsv1.Deployment{}
		object(t, m, "Deployment", "omnia-operator", d)
		if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
			t.Errorf("replicas %v, want 2", d.Spec.Replicas)
		}
		pod := d.Spec.Template.Spec
		if pod.ServiceAccountName != serviceAccount {
			t.Errorf("serviceAccountName %q, want %s", pod.ServiceAccountName, serviceAccount)
		}
		if psc := pod.SecurityContext; psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot ||
			psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
			t.Errorf("pod securityContext %+v: want runAsNonRoot and seccomp RuntimeDefault", psc)
		}
		if len(pod.Containers) != 1 {
			t.Fatalf("%d containers, want 1", len(pod.Containers))
		}
		c := pod.Containers[0]
		sc := c.SecurityContext
		switch {
		case sc == nil:
			t.Fatal("container has no securityContext")
		case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
			t.Error("allowPrivilegeEscalation is not false")
		case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
			t.Error("readOnlyRootFilesystem is not true")
		case sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot:
			t.Error("runAsNonRoot is not true")
		case sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" || len(sc.Capabilities.Add) != 0:
			t.Errorf("capabilities %+v, want drop [ALL] and no add", sc.Capabilities)
		case sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault:
			t.Errorf("seccompProfile %+v, want RuntimeDefault", sc.SeccompProfile)
		}
		probe := func(name string, p *corev1.Probe, path string) {
			if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != path || p.HTTPGet.Port != intstr.FromString("health") {
				t.Errorf("%s probe %+v, want GET %s on port health", name, p, path)
			}
		}
		probe("liveness", c.LivenessProbe, "/healthz")
		probe("readiness", c.ReadinessProbe, "/readyz")
		ports := map[string]int32{}
		for _, p := range c.Ports {
			ports[p.Name] = p.ContainerPort
		}
		if ports["health"] != 8081 || ports["webhook"] != 9443 || ports["metrics"] != 8443 {
			t.Errorf("ports %v, want health 8081, webhook 9443, metrics 8443", ports)
		}
		args := strings.Join(c.Args, " ")
		for _, want := range []string{"--leader-elect=true", "--health-probe-bind-address=:8081", "--metrics-bind-address=:8443", "--webhook-port=9443"} {
			if !strings.Contains(args, want) {
				t.Errorf("args %q lack %s", args, want)
			}
		}

		// The webhook serving certificate is cert-manager's Secret, mounted
		// where --webhook-cert-dir points.
		cert := &struct {
			Spec struct {
				SecretName string `json:"secretName"`
			} `json:"spec"`
		}{}
		for _, r := range m.Resources() {
			if r.GetKind() == "Certificate" {
				data, _ := r.AsYAML()
				if err := yaml.Unmarshal(data, cert); err != nil {
					t.Fatal(err)
				}
			}
		}
		var certVolume string
		for _, v := range pod.Volumes {
			if v.Secret != nil && v.Secret.SecretName == cert.Spec.SecretName && cert.Spec.SecretName != "" {
				certVolume = v.Name
			}
		}
		if certVolume == "" {
			t.Fatalf("no volume mounts the Certificate's Secret %q", cert.Spec.SecretName)
		}
		mounted := false
		for _, vm := range c.VolumeMounts {
			if vm.Name == certVolume && strings.Contains(args, "--webhook-cert-dir="+vm.MountPath) && vm.ReadOnly {
				mounted = true
			}
		}
		if !mounted {
			t.Errorf("the certificate volume %s is not mounted read-only at --webhook-cert-dir (mounts %+v, args %q)", certVolume, c.VolumeMounts, args)
		}
	})

	t.Run("PodDisruptionBudget", func(t *testing.T) {
		d := &appsv1.Deployment{}
		object(t, m, "Deployment", "omnia-operator", d)
		pdb := &policyv1.PodDisruptionBudget{}
		object(t, m, "PodDisruptionBudget", "omnia-operator", pdb)
		if pdb.Spec.MinAvailable == nil || pdb.Spec.MinAvailable.IntValue() != 1 {
			t.Errorf("minAvailable %v, want 1", pdb.Spec.MinAvailable)
		}
		if pdb.Spec.Selector == nil || !mapsEqual(pdb.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
			t.Errorf("PDB selector %+v does not select the Deployment's pods %v", pdb.Spec.Selector, d.Spec.Template.Labels)
		}
	})

	t.Run("ServiceAccount and bindings", func(t *testing.T) {
		sa := &corev1.ServiceAccount{}
		object(t, m, "ServiceAccount", serviceAccount, sa)
		toSA := func(subjects []rbacv1.Subject) bool {
			return len(subjects) == 1 && subjects[0].Kind == "ServiceAccount" && subjects[0].Name == serviceAccount && subjects[0].Namespace == namespace
		}
		crb := &rbacv1.ClusterRoleBinding{}
		object(t, m, "ClusterRoleBinding", "omnia-operator", crb)
		if crb.RoleRef.Kind != "ClusterRole" || crb.RoleRef.Name != "omnia-operator" || !toSA(crb.Subjects) {
			t.Errorf("ClusterRoleBinding %+v, want ClusterRole omnia-operator to the ServiceAccount", crb)
		}
		object(t, m, "ClusterRole", "omnia-operator", &rbacv1.ClusterRole{})
		rb := &rbacv1.RoleBinding{}
		object(t, m, "RoleBinding", "omnia-operator-leader-election", rb)
		if rb.RoleRef.Kind != "Role" || rb.RoleRef.Name != "omnia-operator" || !toSA(rb.Subjects) {
			t.Errorf("RoleBinding %+v, want Role omnia-operator to the ServiceAccount", rb)
		}
		role := &rbacv1.Role{}
		object(t, m, "Role", "omnia-operator", role)
		leases := false
		for _, r := range role.Rules {
			for _, res := range r.Resources {
				if res == "leases" {
					leases = true
				}
			}
		}
		if !leases {
			t.Errorf("the leader-election Role grants no leases: %+v", role.Rules)
		}
		object(t, m, "ClusterRole", "omnia-metrics-reader", &rbacv1.ClusterRole{})
	})

	t.Run("webhooks point at the Service", func(t *testing.T) {
		svc := &corev1.Service{}
		object(t, m, "Service", "webhook-service", svc)
		d := &appsv1.Deployment{}
		object(t, m, "Deployment", "omnia-operator", d)
		if !subset(svc.Spec.Selector, d.Spec.Template.Labels) {
			t.Errorf("webhook Service selector %v does not select the operator's pods %v", svc.Spec.Selector, d.Spec.Template.Labels)
		}
		if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort.IntValue() != 9443 {
			t.Errorf("webhook Service ports %+v, want one to 9443", svc.Spec.Ports)
		}
		vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		object(t, m, "ValidatingWebhookConfiguration", "validating-webhook-configuration", vwc)
		if len(vwc.Webhooks) == 0 {
			t.Fatal("no webhooks")
		}
		for _, w := range vwc.Webhooks {
			s := w.ClientConfig.Service
			if s == nil || s.Name != svc.Name || s.Namespace != namespace {
				t.Errorf("webhook %s calls %+v, want Service %s/%s", w.Name, s, namespace, svc.Name)
			}
		}
		if got := vwc.Annotations["cert-manager.io/inject-ca-from"]; got != namespace+"/omnia-webhook-cert" {
			t.Errorf("inject-ca-from %q, want %s/omnia-webhook-cert", got, namespace)
		}
	})
}

func subset(sel, labels map[string]string) bool {
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func mapsEqual(a, b map[string]string) bool {
	return len(a) == len(b) && subset(a, b)
}

// TestKustomizationsBuild: each component builds on its own too.
func TestKustomizationsBuild(t *testing.T) {
	for _, dir := range []string{"config/crd", "config/rbac", "config/manager", "config/webhook"} {
		t.Run(dir, func(t *testing.T) {
			if m := build(t, dir); m.Size() == 0 {
				t.Errorf("%s builds nothing", dir)
			}
		})
	}
}
