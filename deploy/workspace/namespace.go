// Package workspace resolves the namespace of a workspace: the Workspace
// (cluster-scoped) of that name says it in spec.namespace.name. The deploy
// API and the catalog both ask it, so neither a token's claim nor anything
// else a caller sends decides which namespace the operator reads or writes.
package workspace

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// ErrNotFound: no Workspace has the name, or the Workspace names no
// namespace. The deploy API and the catalog answer it with 404.
var ErrNotFound = errors.New("workspace not found")

// Namespace reads Workspace name through r (the manager's cache) and
// returns its spec.namespace.name. It never returns an empty namespace: a
// list in "" would be every namespace.
func Namespace(ctx context.Context, r client.Reader, name string) (string, error) {
	var ws v1alpha1.Workspace
	if err := r.Get(ctx, client.ObjectKey{Name: name}, &ws); err != nil {
		if apierrors.IsNotFound(err) {
			return "", fmt.Errorf("%w: %q", ErrNotFound, name)
		}
		return "", fmt.Errorf("reading Workspace %q: %w", name, err)
	}
	if ws.Spec.Namespace.Name == "" {
		return "", fmt.Errorf("%w: Workspace %q names no namespace", ErrNotFound, name)
	}
	return ws.Spec.Namespace.Name, nil
}
