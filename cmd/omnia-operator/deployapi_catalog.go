package main

import (
	"context"
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/catalog"
	"github.com/altairalabs/omnia/deploy/server"
)

// The workspace catalog (docs/catalog-api.md): GET .../catalog/{overview,
// search,get} on the deploy API's listener, answered from the manager's
// informer cache with the deploy API's keys, each request authenticated by
// a delegation token for the URL's workspace.
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=toolregistries;skillsources;providers;agentruntimes;promptpacks;workspaces,verbs=get;list;watch
func init() {
	deployAPIBackends = append(deployAPIBackends, func(mgr ctrl.Manager, o *server.Options) error {
		// The catalog's kinds: their informers start with the cache, so
		// /readyz (cache sync) covers them and no request lists from the
		// API server.
		for _, obj := range []client.Object{&v1alpha1.ToolRegistry{}, &v1alpha1.SkillSource{}, &v1alpha1.Provider{},
			&v1alpha1.AgentRuntime{}, &v1alpha1.PromptPack{}, &v1alpha1.Workspace{}} {
			if _, err := mgr.GetCache().GetInformer(context.Background(), obj); err != nil {
				return fmt.Errorf("catalog API: starting the %T informer: %w", obj, err)
			}
		}
		h, err := catalog.NewHandler(catalog.Options{
			Verifier:             o.Verifier,
			Reader:               mgr.GetCache(),
			MaxInFlightPerCaller: o.MaxInFlightPerCaller,
			RetryAfter:           o.RetryAfter,
			Log:                  o.Log.WithName("catalog"),
		})
		if err != nil {
			return err
		}
		o.Catalog = h
		return nil
	})
}
