package agentruntime

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
	"github.com/altairalabs/omnia/rules"
)

// Hosts on the shared Gateway (docs/exposure.md § Who may claim a host).
// Two things keep a tenant off another's hostname:
//
//   - the host rules (rules/agentruntime_expose_domain.go): a facade whose
//     expose.host holds a wildcard or lies outside its namespace's domain and
//     its Workspace's grants gets no route; the controller reads their
//     findings (the same evaluation that sets every other condition);
//   - first come, first served (rules.AgentRuntimeExposeHostHolder): a
//     facade whose host another AgentRuntime, in any namespace, claimed
//     first gets no route on it.
//
// The second needs every agent asking for one host. The manager's cache
// indexes AgentRuntimes by the hosts their exposed facades ask for
// (indexExposeHost), so the lookup is one in-memory index read, cluster
// wide, with no API request.

// indexExposeHost indexes AgentRuntimes by the hosts of their exposed
// facades (rules.AgentRuntimeExposeHosts under the base domain).
const indexExposeHost = "exposure.hosts"

// maxHostHandovers bounds the agents one change re-reconciles per host:
// when the holder of a host changes, only the old and the new holder change
// verdict (every later claimant stays refused), so a namespace with many
// agents claiming one host cannot make each change re-reconcile them all.
const maxHostHandovers = 2

// indexExposeHosts registers indexExposeHost with idx, keyed under
// baseDomain.
func indexExposeHosts(ctx context.Context, idx client.FieldIndexer, baseDomain string) error {
	return idx.IndexField(ctx, &v1alpha1.AgentRuntime{}, indexExposeHost, func(o client.Object) []string {
		ar, ok := o.(*v1alpha1.AgentRuntime)
		if !ok {
			return nil
		}
		return rules.AgentRuntimeExposeHosts(ar, baseDomain)
	})
}

// hostCandidates lists the AgentRuntimes, of every namespace, whose exposed
// facades ask for host: from the indexed reader (the manager's cache), read
// only, never deep-copied.
func (r *Reconciler) hostCandidates(ctx context.Context, host string) ([]v1alpha1.AgentRuntime, error) {
	claims := r.opts.Exposure.claims
	if claims == nil {
		return nil, fmt.Errorf("exposure: the AgentRuntime host index is not set up")
	}
	var list v1alpha1.AgentRuntimeList
	if err := claims.List(ctx, &list, client.MatchingFields{indexExposeHost: host}, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing the AgentRuntimes asking for host %s: %w", host, err)
	}
	return list.Items, nil
}

// hostHolder is the agent that holds host before ar, nil when ar may have
// it. facts answer the claimants' Workspaces; their errors are the
// caller's to check.
func (r *Reconciler) hostHolder(ctx context.Context, ar *v1alpha1.AgentRuntime, host string, facts rules.Facts) (*v1alpha1.AgentRuntime, error) {
	candidates, err := r.hostCandidates(ctx, host)
	if err != nil {
		return nil, err
	}
	return rules.AgentRuntimeExposeHostHolder(ar, host, r.exposureBaseDomain(), candidates, facts), nil
}

// exposureBaseDomain is the base domain hosts are judged and defaulted
// under: the configured one while a Gateway is configured, else "" (no
// route is made).
func (r *Reconciler) exposureBaseDomain() string {
	if r.opts.Exposure.Gateway == nil {
		return ""
	}
	return r.opts.Exposure.BaseDomain
}

// hostHandovers maps an AgentRuntime (the old and the new object of an
// update, a created or a deleted one) to the agents whose hold on one of
// its hosts may have changed with it: the first maxHostHandovers claimants
// of each host other than the agent itself (its own change reconciles it).
// When it takes a host first, the agent that held it loses it; when it lets
// a host go, the next claimant gets it.
func (r *Reconciler) hostHandovers(ctx context.Context, o client.Object) []reconcile.Request {
	ar, ok := o.(*v1alpha1.AgentRuntime)
	if !ok {
		return nil
	}
	return r.handoversOf(ctx, []*v1alpha1.AgentRuntime{ar}, client.ObjectKeyFromObject(ar))
}

// hostHandoversOfWorkspace maps a Workspace to the agents whose hold on a
// host of its namespace's agents may have changed with its grants
// (spec.exposure.allowedHostSuffixes): a grant given or taken away moves
// the host to another claimant, perhaps in another namespace.
func (r *Reconciler) hostHandoversOfWorkspace(ctx context.Context, o client.Object) []reconcile.Request {
	ws, ok := o.(*v1alpha1.Workspace)
	if !ok || ws.Spec.Namespace.Name == "" {
		return nil
	}
	var list v1alpha1.AgentRuntimeList
	if err := r.client.List(ctx, &list, client.InNamespace(ws.Spec.Namespace.Name), client.UnsafeDisableDeepCopy); err != nil {
		logf.FromContext(ctx).Error(err, "listing the AgentRuntimes of Workspace "+ws.Name)
		return nil
	}
	agents := make([]*v1alpha1.AgentRuntime, 0, len(list.Items))
	for i := range list.Items {
		agents = append(agents, &list.Items[i])
	}
	return r.handoversOf(ctx, agents, client.ObjectKey{})
}

// handoversOf is the first maxHostHandovers claimants, other than skip, of
// each host agents ask for.
func (r *Reconciler) handoversOf(ctx context.Context, agents []*v1alpha1.AgentRuntime, skip client.ObjectKey) []reconcile.Request {
	base := r.exposureBaseDomain()
	if base == "" || r.opts.Exposure.claims == nil {
		return nil
	}
	facts := clusterfacts.New(ctx, r.client, r.client, r.mapper, r.opts.License).WithExposureBaseDomain(base)
	seen := map[client.ObjectKey]bool{}
	var out []reconcile.Request
	for _, ar := range agents {
		for _, host := range rules.AgentRuntimeExposeHosts(ar, base) {
			candidates, err := r.hostCandidates(ctx, host)
			if err != nil {
				logf.FromContext(ctx).Error(err, "finding the agents that claim a host")
				continue
			}
			n := 0
			for _, c := range rules.AgentRuntimeExposeHostClaims(host, base, candidates, facts) {
				k := client.ObjectKeyFromObject(c)
				if k == skip {
					continue
				}
				if n++; n > maxHostHandovers {
					break
				}
				if !seen[k] {
					seen[k] = true
					out = append(out, reconcile.Request{NamespacedName: k})
				}
			}
		}
	}
	if err := facts.Err(); err != nil {
		logf.FromContext(ctx).Error(err, "looking up the Workspaces of the agents that claim a host")
	}
	return out
}

// exposeHostRuleIDs are the host rules whose findings withhold a facade's
// route.
var exposeHostRuleIDs = map[string]bool{
	rules.AgentRuntimeExposeHostWildcardID:               true,
	rules.AgentRuntimeExposeHostOutsideNamespaceDomainID: true,
}

// exposeHostRefusals are the host rules' findings by field (one facade's
// expose.host: rules.AgentRuntimeExposeHostField).
func exposeHostRefusals(findings []rules.Finding) map[string]rules.Finding {
	out := map[string]rules.Finding{}
	for _, f := range findings {
		if exposeHostRuleIDs[f.RuleID] {
			if _, seen := out[f.Field]; !seen {
				out[f.Field] = f
			}
		}
	}
	return out
}

// desiredRoutes fills desired with the route of each requested facade that
// may have one, and records in o why each other one has none: it shares a
// host with an earlier facade of the agent (ExposeHostConflict), a host
// rule refused its host (the rule's reason), or another agent holds the
// host (ExposeHostInUse). A route the agent had for a facade left out here
// is deleted by the caller, so a refused or taken host is never kept.
func (r *Reconciler) desiredRoutes(ctx context.Context, ar *v1alpha1.AgentRuntime, findings []rules.Finding, o *exposureOutcome,
	desired map[string]*gatewayv1.HTTPRoute) error {
	gw := *r.opts.Exposure.Gateway
	refusals := exposeHostRefusals(findings)
	var facts *clusterfacts.Facts
	for _, e := range o.requested {
		if e.ConflictsWith >= 0 {
			o.conflicts = append(o.conflicts, fmt.Sprintf("facades[%d] (%s) shares the host %s with facades[%d] and gets no route",
				e.Index, e.Type, e.Host, e.ConflictsWith))
			continue
		}
		if f, ok := refusals[rules.AgentRuntimeExposeHostField(e.Index)]; ok {
			o.refused = append(o.refused, fmt.Sprintf("facades[%d] (%s) gets no route: [%s] %s", e.Index, e.Type, f.RuleID, f.Message))
			if o.refusedReason == "" {
				o.refusedReason = f.Reason
			}
			continue
		}
		rt := workload.HTTPRoute(ar, e, gw)
		if rt == nil {
			continue
		}
		if facts == nil {
			facts = clusterfacts.New(ctx, r.client, r.client, r.mapper, r.opts.License).WithExposureBaseDomain(r.exposureBaseDomain())
		}
		holder, err := r.hostHolder(ctx, ar, e.Host, facts)
		if err != nil {
			return err
		}
		if holder != nil {
			// The holder is not named: it may be another tenant's.
			o.inUse = append(o.inUse, fmt.Sprintf("facades[%d] (%s) gets no route: another AgentRuntime claimed the host %s first "+
				"(first come, first served); it gets the route once that agent lets the host go", e.Index, e.Type, e.Host))
			continue
		}
		desired[rt.Name] = rt
	}
	if facts != nil {
		if err := facts.Err(); err != nil {
			return fmt.Errorf("looking up who holds the exposed hosts: %w", err)
		}
	}
	return nil
}
