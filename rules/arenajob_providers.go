package rules

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// ArenaJob provider rules: spec.providers is excluded from schema validation
// (arenajob.md#providers), so every check of its entries is here.

func init() {
	Default.Register(Rule{
		ID:        "arenajob/provider-entry-exactly-one",
		Kinds:     arenaJobKinds,
		Stage:     StageAdmission,
		Severity:  SeverityDeny,
		Condition: v1alpha1.ArenaRunConditionReady,
		Reason:    v1alpha1.ArenaRunReasonInvalidProviderEntry,
		Doc: "Each spec.providers entry (array or map mode) sets exactly one of providerRef and agentRef; the webhook refuses a bad entry, " +
			"otherwise the ArenaRun fails (Ready=False, reason InvalidProviderEntry) naming the group and the entry's index or key.",
		Spec:  "arenajob.md#providers",
		Check: checkArenaJobProviderEntries,
	})
	Default.Register(Rule{
		ID:        "arenajob/provider-ref-namespace",
		Kinds:     arenaJobKinds,
		Stage:     StageAdmission,
		Severity:  SeverityWarn,
		Condition: v1alpha1.ArenaRunConditionJobCreated,
		Reason:    v1alpha1.ArenaRunReasonJobCreationFailed,
		Doc: "A spec.providers entry's providerRef.namespace, if set, must be the job's own namespace; otherwise the run's JobCreated " +
			"condition goes False (reason JobCreationFailed) and the controller retries with backoff.",
		Spec:  "arenajob.md#providers",
		Check: checkArenaJobProviderRefNamespace,
	})
}

// arenaJobProviderEntryVisit calls fn for every entry of spec.providers, in a
// stable order (groups and map keys sorted), with the entry's path and its
// name for messages ("provider group \"default\" entry 0", or entry
// "primary" in map mode), built only when a check reports.
func arenaJobProviderEntryVisit(spec *v1alpha1.ArenaJobSpec, base *field.Path, fn func(e *v1alpha1.ArenaJobProviderEntry, p *field.Path, name arenaJobEntryName)) {
	if len(spec.Providers) == 0 {
		return
	}
	providers := base.Child("providers")
	for _, group := range slices.Sorted(maps.Keys(spec.Providers)) {
		g := spec.Providers[group]
		gp := providers.Key(group)
		if g.IsMap() {
			for _, key := range slices.Sorted(maps.Keys(g.ByProviderID)) {
				e := g.ByProviderID[key]
				fn(&e, gp.Key(key), arenaJobEntryName{group: group, key: key, isMap: true})
			}
			continue
		}
		for i := range g.Entries {
			fn(&g.Entries[i], gp.Index(i), arenaJobEntryName{group: group, index: i})
		}
	}
}

// arenaJobEntryName names one providers entry in a message.
type arenaJobEntryName struct {
	group, key string
	index      int
	isMap      bool
}

func (n arenaJobEntryName) String() string {
	if n.isMap {
		return "provider group " + strconv.Quote(n.group) + " entry " + strconv.Quote(n.key)
	}
	return "provider group " + strconv.Quote(n.group) + " entry " + strconv.Itoa(n.index)
}

func checkArenaJobProviderEntries(in Input) field.ErrorList {
	spec, base, _ := arenaJobSpecOf(in)
	if spec == nil {
		return nil
	}
	var errs field.ErrorList
	arenaJobProviderEntryVisit(spec, base, func(e *v1alpha1.ArenaJobProviderEntry, p *field.Path, name arenaJobEntryName) {
		switch {
		case e.ProviderRef == nil && e.AgentRef == nil:
			errs = append(errs, field.Required(p, fmt.Sprintf(
				"%s sets neither providerRef nor agentRef: set exactly one, providerRef to name a Provider or agentRef to name an AgentRuntime", name)))
		case e.ProviderRef != nil && e.AgentRef != nil:
			errs = append(errs, field.Forbidden(p, fmt.Sprintf(
				"%s sets both providerRef and agentRef: keep exactly one, providerRef for a raw LLM Provider or agentRef for a deployed AgentRuntime", name)))
		}
	})
	return errs
}

func checkArenaJobProviderRefNamespace(in Input) field.ErrorList {
	spec, base, namespace := arenaJobSpecOf(in)
	// Without the object's namespace (a manifest that names none) the job's
	// namespace is only known when it is applied, so there is nothing to
	// compare against.
	if spec == nil || namespace == "" {
		return nil
	}
	var errs field.ErrorList
	arenaJobProviderEntryVisit(spec, base, func(e *v1alpha1.ArenaJobProviderEntry, p *field.Path, name arenaJobEntryName) {
		if e.ProviderRef == nil || e.ProviderRef.Namespace == "" || e.ProviderRef.Namespace == namespace {
			return
		}
		np := p.Child("providerRef", "namespace")
		errs = append(errs, field.Invalid(np, e.ProviderRef.Namespace, fmt.Sprintf(
			"%s refers to a Provider in namespace %q, but a job may only use Providers in its own namespace %q: the run's worker Job will not be created (JobCreated=False, reason JobCreationFailed); remove %s or set it to %q",
			name, e.ProviderRef.Namespace, namespace, np, namespace)))
	})
	return errs
}
