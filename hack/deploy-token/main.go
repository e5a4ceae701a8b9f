// Command deploy-token mints a deploy API token with `make run`'s
// development key (<state>/deploy-api/signing-key.pem), for curl or
// omniactl against the local operator:
//
//	TOKEN=$(go run ./hack/deploy-token -workspace default -role editor)
//	curl --cacert .local/deploy-api/ca.crt -H "Authorization: Bearer $TOKEN" \
//	  "$(cat .local/deploy-api/url)/api/v1/workspaces/default/deploy-profile"
//
// The deploy API acts in the Workspace's spec.namespace.name and refuses a
// token whose namespace claim differs (403), or a workspace no Workspace
// names (404). So the token's namespace is read from the Workspace in the
// local cluster (<state>/kubeconfig); a Workspace that does not exist yet is
// created (namespace: -namespace, default the workspace's name) unless
// -create-workspace=false.
//
// Only that local operator trusts the key.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/golang-jwt/jwt/v5"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/auth/authtest"
)

func main() {
	state := flag.String("state-dir", ".local", "make run's state directory")
	workspace := flag.String("workspace", "default", "the token's workspace")
	namespace := flag.String("namespace", "", "the workspace's namespace when the Workspace is created (default: the workspace's name); an existing Workspace's namespace is always the one used")
	create := flag.Bool("create-workspace", true, "create the Workspace in the local cluster when it does not exist")
	role := flag.String("role", string(auth.RoleEditor), "viewer, editor, admin or owner")
	sub := flag.String("sub", "local-developer", "the user (sub); empty for none")
	ttl := flag.Duration("ttl", auth.DefaultMaxTokenLifetime, "validity (at most the operator's --deploy-api-max-token-lifetime, default 1h)")
	flag.Parse()
	if err := run(*state, *workspace, *namespace, *create, auth.Role(*role), *sub, *ttl); err != nil {
		fmt.Fprintln(os.Stderr, "deploy-token:", err)
		os.Exit(1)
	}
}

func run(state, workspace, namespace string, create bool, role auth.Role, sub string, ttl time.Duration) error {
	if ttl <= 0 || ttl > auth.DefaultMaxTokenLifetime {
		return fmt.Errorf("-ttl %s: the operator refuses tokens living longer than %s (or not at all)", ttl, auth.DefaultMaxTokenLifetime)
	}
	path := filepath.Join(state, "deploy-api", "signing-key.pem")
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("%w (run `make run` first)", err)
	}
	signer, err := authtest.LoadOrCreateES256(path, "local-dev")
	if err != nil {
		return err
	}
	if namespace == "" {
		namespace = workspace
	}
	ns, err := workspaceNamespace(filepath.Join(state, "kubeconfig"), workspace, namespace, create)
	if err != nil {
		return err
	}
	now := time.Now()
	c := authtest.Claims(sub, workspace, ns, role, now)
	c.ExpiresAt = jwt.NewNumericDate(now.Add(ttl))
	tok, err := signer.Mint(c)
	if err != nil {
		return err
	}
	fmt.Println(tok)
	return nil
}

// workspaceNamespace returns Workspace workspace's spec.namespace.name in
// the local cluster, creating the Workspace for namespace when it does not
// exist and create is set.
func workspaceNamespace(kubeconfig, workspace, namespace string, create bool) (string, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return "", fmt.Errorf("the local cluster's kubeconfig: %w (is `make run` running?)", err)
	}
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return "", err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var ws v1alpha1.Workspace
	err = c.Get(ctx, client.ObjectKey{Name: workspace}, &ws)
	switch {
	case err == nil:
		if ws.Spec.Namespace.Name == "" {
			return "", fmt.Errorf("the Workspace %s names no namespace", workspace)
		}
		return ws.Spec.Namespace.Name, nil
	case !apierrors.IsNotFound(err):
		return "", fmt.Errorf("reading Workspace %s: %w", workspace, err)
	case !create:
		return "", errors.New("no Workspace " + workspace + " (the deploy API answers 404 for it); drop -create-workspace=false to create it")
	}
	ws = v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: workspace},
		Spec: v1alpha1.WorkspaceSpec{Namespace: v1alpha1.WorkspaceNamespace{Name: namespace}}}
	if err := c.Create(ctx, &ws); err != nil {
		return "", fmt.Errorf("creating Workspace %s: %w", workspace, err)
	}
	fmt.Fprintf(os.Stderr, "deploy-token: created Workspace %s (namespace %s); the deploy API serves it once its cache has it\n", workspace, namespace)
	return namespace, nil
}
