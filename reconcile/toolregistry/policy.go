package toolregistry

import (
	"context"
	"sort"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// ToolPolicy CRD detection.
//
// The ToolPolicy CRD is optional (Enterprise): without it policyCount and
// PolicyBound are absent. The controller learns whether it is served from a
// fresh discovery call of the omnia group-version, made on the first
// reconcile and then every CRDCheckInterval by a leader-only runnable. A
// discovery call rather than the manager's RESTMapper, because the mapper
// keeps a mapping it has found, so it would never see the CRD go away; and
// rather than a watch on CustomResourceDefinitions, because discovery needs
// no RBAC beyond what every authenticated client has (reading every CRD in
// the cluster would be a broad grant for one bit), and it answers "is the
// kind served", which a CRD object that is not yet Established does not.
// The cost is up to one interval of delay after the CRD appears.
//
// When the CRD first appears, the controller adds its ToolPolicy watch
// (a controller cannot watch a kind whose CRD is absent when it starts), and
// whenever the answer flips it re-reconciles every ToolRegistry.

// ToolPolicyCRD is the group/Kind of the optional ToolPolicy CRD.
const ToolPolicyCRD = "omnia.altairalabs.ai/ToolPolicy"

// toolPolicyResource is the ToolPolicy resource in the omnia group-version.
const toolPolicyResource = "toolpolicies"

// DefaultCRDCheckInterval is how often the controller re-checks whether the
// ToolPolicy CRD is served.
const DefaultCRDCheckInterval = 30 * time.Second

// policyCRD tracks whether the ToolPolicy CRD is served.
type policyCRD struct {
	discovery discovery.DiscoveryInterface
	// onInstalled is called (once) the first time the CRD is found, before
	// the state is published; it adds the ToolPolicy watch.
	onInstalled func(ctx context.Context) error
	// changed receives an event when the state flips after the first check.
	changed chan event.GenericEvent

	mu        sync.Mutex
	checked   bool
	installed bool
	watching  bool
}

func newPolicyCRD(d discovery.DiscoveryInterface, onInstalled func(context.Context) error) *policyCRD {
	return &policyCRD{discovery: d, onInstalled: onInstalled, changed: make(chan event.GenericEvent, 1)}
}

// served asks discovery whether the ToolPolicy resource is served. A
// NotFound group-version means not served; another error leaves the answer
// unknown (ok false).
func (p *policyCRD) served() (installed, ok bool) {
	list, err := p.discovery.ServerResourcesForGroupVersion(v1alpha1.GroupVersion.String())
	if err != nil {
		if apierrors.IsNotFound(err) {
			return false, true
		}
		return false, false
	}
	for _, r := range list.APIResources {
		if r.Name == toolPolicyResource {
			return true, true
		}
	}
	return false, true
}

// Installed reports whether the CRD is served, checking discovery on the
// first call.
func (p *policyCRD) Installed(ctx context.Context) (bool, error) {
	p.mu.Lock()
	checked, installed := p.checked, p.installed
	p.mu.Unlock()
	if checked {
		return installed, nil
	}
	return p.Refresh(ctx)
}

// Refresh re-checks discovery and returns the answer. On a transient
// discovery error it keeps the previous answer. When the CRD is served and
// its watch is not yet added, it adds it first; when the answer flips after
// the first check it signals changed.
func (p *policyCRD) Refresh(ctx context.Context) (bool, error) {
	installed, ok := p.served()
	p.mu.Lock()
	defer p.mu.Unlock()
	if !ok {
		return p.installed, nil
	}
	if installed && !p.watching && p.onInstalled != nil {
		if err := p.onInstalled(ctx); err != nil {
			return p.installed, err
		}
		p.watching = true
	}
	flipped := p.checked && installed != p.installed
	p.checked, p.installed = true, installed
	if flipped {
		select {
		case p.changed <- event.GenericEvent{Object: &v1alpha1.ToolRegistry{}}:
		default: // one pending signal re-reconciles everything already
		}
	}
	return installed, nil
}

// run returns the periodic re-check, which runs until ctx ends (a leader-only manager
// runnable).
func (p *policyCRD) run(interval time.Duration) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		log := logf.FromContext(ctx).WithName("toolpolicy-crd")
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-t.C:
				if _, err := p.Refresh(ctx); err != nil {
					log.Error(err, "adding the ToolPolicy watch")
				}
			}
		}
	}
}

// selectingPolicies returns the names of the ToolPolicies in the registry's
// namespace whose spec.selector.registry names it, sorted.
func selectingPolicies(ctx context.Context, r client.Reader, registry types.NamespacedName) ([]string, error) {
	list := &v1alpha1.ToolPolicyList{}
	if err := r.List(ctx, list, client.InNamespace(registry.Namespace)); err != nil {
		return nil, err
	}
	var names []string
	for i := range list.Items {
		if list.Items[i].Spec.Selector.Registry == registry.Name {
			names = append(names, list.Items[i].Name)
		}
	}
	sort.Strings(names)
	return names, nil
}
