package controlplane

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The operator runs in the tests as it runs in a cluster: as its
// ServiceAccount, with exactly the permissions config/rbac grants it through
// the bindings in config/manager — never as system:masters. A permission the
// generated role lacks is then a failure the tests see.
const (
	// OperatorNamespace is the operator's namespace (config/default).
	OperatorNamespace = "omnia-system"
	// OperatorServiceAccount is the operator's ServiceAccount.
	OperatorServiceAccount = "omnia-operator"
	// MetricsScraper is a ServiceAccount bound to omnia-metrics-reader,
	// as a Prometheus would be.
	MetricsScraper = "omnia-metrics-scraper"
	// LeaseName is the operator's leader-election Lease in OperatorNamespace.
	LeaseName = "omnia-operator.omnia.altairalabs.ai"
)

// operatorRBACFiles are applied, in order, by InstallOperatorRBAC.
var operatorRBACFiles = []string{
	"config/rbac/role.yaml",
	"config/rbac/metrics_reader_role.yaml",
	"config/manager/service_account.yaml",
	"config/manager/role_binding.yaml",
	"config/manager/leader_election_role_binding.yaml",
}

// tokenLifetime is how long a ServiceAccount token from ServiceAccountToken
// lives: longer than any test or `make run` session.
const tokenLifetime = 7 * 24 * 3600

// InstallOperatorRBAC creates OperatorNamespace and applies the generated
// roles, the operator's ServiceAccount and its bindings, plus a
// MetricsScraper ServiceAccount bound to omnia-metrics-reader. It is
// idempotent: `make run` calls it on every start against kept data.
func InstallOperatorRBAC(cfg *rest.Config) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	var objs []*unstructured.Unstructured
	for _, file := range operatorRBACFiles {
		o, err := readObjects(filepath.Join(root, file))
		if err != nil {
			return err
		}
		objs = append(objs, o...)
	}
	return installOperatorRBAC(cfg, objs, "config/rbac and config/manager")
}

// InstallOperatorRBACFrom is InstallOperatorRBAC with the ServiceAccount,
// roles and bindings of the kustomization dir (relative to the repository
// root, e.g. "config/namespaced") as `kubectl kustomize` builds it, in
// place of config/default's: the operator then holds exactly that
// install's grants. The namespaces its RoleBindings name are created first,
// as a platform creates its teams' namespaces before installing.
func InstallOperatorRBACFrom(cfg *rest.Config, dir string) error {
	objs, err := KustomizeRBAC(dir)
	if err != nil {
		return err
	}
	return installOperatorRBAC(cfg, objs, dir)
}

func installOperatorRBAC(cfg *rest.Config, objs []*unstructured.Unstructured, source string) error {
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return err
	}
	ctx := context.Background()
	namespaces := []string{OperatorNamespace}
	for _, o := range objs {
		if ns := o.GetNamespace(); ns != "" && !slices.Contains(namespaces, ns) {
			namespaces = append(namespaces, ns)
		}
	}
	for _, ns := range namespaces {
		if err := ensure(ctx, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return err
		}
	}
	for _, o := range objs {
		if err := ensure(ctx, c, o); err != nil {
			return fmt.Errorf("controlplane: applying %s %s from %s: %w", o.GetKind(), o.GetName(), source, err)
		}
	}
	scraper := []client.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: OperatorNamespace, Name: MetricsScraper}},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: MetricsScraper},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "omnia-metrics-reader"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: OperatorNamespace, Name: MetricsScraper}},
		},
	}
	for _, o := range scraper {
		if err := ensure(ctx, c, o); err != nil {
			return err
		}
	}
	return nil
}

// ensure creates obj, or replaces the stored object's content with it when
// it exists (the files may have changed since the data was kept).
func ensure(ctx context.Context, c client.Client, obj client.Object) error {
	err := c.Create(ctx, obj)
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	if _, ok := obj.(*unstructured.Unstructured); !ok {
		return nil
	}
	stored := &unstructured.Unstructured{}
	stored.SetGroupVersionKind(obj.GetObjectKind().GroupVersionKind())
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), stored); err != nil {
		return err
	}
	obj.SetResourceVersion(stored.GetResourceVersion())
	return c.Update(ctx, obj)
}

// readObjects decodes every document of a YAML file.
func readObjects(path string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

// ServiceAccountToken returns a token for the ServiceAccount from the
// TokenRequest API, as the kubelet would project it into a pod.
func ServiceAccountToken(cfg *rest.Config, namespace, name string) (string, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return "", err
	}
	lifetime := int64(tokenLifetime)
	tr, err := cs.CoreV1().ServiceAccounts(namespace).CreateToken(context.Background(), name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &lifetime}}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("controlplane: a token for ServiceAccount %s/%s: %w", namespace, name, err)
	}
	return tr.Status.Token, nil
}

// OperatorKubeconfig installs the operator's RBAC (InstallOperatorRBAC) and
// returns a kubeconfig authenticating as its ServiceAccount with a token
// from the TokenRequest API. adminCfg is a system:masters config.
func OperatorKubeconfig(adminCfg *rest.Config) ([]byte, error) {
	if err := InstallOperatorRBAC(adminCfg); err != nil {
		return nil, err
	}
	return operatorToken(adminCfg)
}

// OperatorKubeconfigFrom is OperatorKubeconfig with the RBAC of the
// kustomization dir (InstallOperatorRBACFrom).
func OperatorKubeconfigFrom(adminCfg *rest.Config, dir string) ([]byte, error) {
	if err := InstallOperatorRBACFrom(adminCfg, dir); err != nil {
		return nil, err
	}
	return operatorToken(adminCfg)
}

// operatorToken is a kubeconfig with a token of the operator's
// ServiceAccount.
func operatorToken(adminCfg *rest.Config) ([]byte, error) {
	token, err := ServiceAccountToken(adminCfg, OperatorNamespace, OperatorServiceAccount)
	if err != nil {
		return nil, err
	}
	return TokenKubeconfig(adminCfg, token)
}

// TokenKubeconfig is a kubeconfig for the API server of cfg authenticating
// with a bearer token.
func TokenKubeconfig(cfg *rest.Config, token string) ([]byte, error) {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["token"] = &clientcmdapi.AuthInfo{Token: token}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "token"}
	kc.CurrentContext = "envtest"
	return clientcmd.Write(*kc)
}
