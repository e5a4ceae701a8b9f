package clusterbench

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Scheme holds the built-in kinds and Omnia's.
func Scheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(v1alpha1.AddToScheme(scheme))
	return scheme
}

// AdminClient is the benchmark's own client, as the cluster's admin, with
// a client-side rate limit high enough (500 QPS, bursts of 1,000) that it
// is not what limits the run. It returns the config too, for informers and
// /metrics.
func AdminClient(cfg *rest.Config) (*rest.Config, client.Client, error) {
	admin := rest.CopyConfig(cfg)
	admin.QPS, admin.Burst = 500, 1000
	c, err := client.New(admin, client.Options{Scheme: Scheme()})
	return admin, c, err
}

// LocalVendor is the plain-http vendor the benchmark Providers' health
// checks reach (it answers 404 to everything: reachable, and no
// credential probe goes over plain http). Close it when done.
func LocalVendor() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNotFound) }))
}

// Watch starts one informer per kind of objs with handler and returns once
// they have synced: a benchmark follows status through watches, so its own
// observation costs the API server one encoded event per change, never a
// list of every object.
func Watch(ctx context.Context, cfg *rest.Config, handler toolscache.ResourceEventHandler, objs ...client.Object) error {
	c, err := cache.New(cfg, cache.Options{Scheme: Scheme()})
	if err != nil {
		return err
	}
	for _, obj := range objs {
		inf, err := c.GetInformer(ctx, obj)
		if err != nil {
			return err
		}
		if _, err := inf.AddEventHandler(handler); err != nil {
			return err
		}
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		return fmt.Errorf("the informers of %d kinds did not sync", len(objs))
	}
	return nil
}
