package apply

import (
	"context"
	"net/http"
	"reflect"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/deploy/merge"
	"github.com/altairalabs/omnia/deploy/translate"
)

// RetryAfterSeconds is the Retry-After of a 503 for a dev agent still being
// deleted.
const RetryAfterSeconds = 5

// ProjectResult is the answer of ApplyProject: the status, the body, and
// for a 503 the Retry-After in seconds (0 otherwise).
type ProjectResult struct {
	Status     int
	Body       intent.DeployResult
	RetryAfter int
}

// ApplyProject materializes a pack.project intent (decoded and validated
// with its derived name) for the user pseudonym user in namespace
// (deploy-intent.md § Deploying a project to a dev agent), in the spec's
// order:
//
//	AgentRuntime      upsert, field-merged; promptPackRef is the derived
//	                  pack name with no version; the four dev labels and
//	                  the idle-timeout annotation
//	PromptPackSource  create, or adopt (given the agent as owner)
//	ToolRegistry      upsert (a re-apply updates the spec), owned by the agent
//	Secret            upsert, owned by the ToolRegistry
//	ToolPolicy        upsert, created owned by the agent
//
// Every object is read fresh before anything is written. An existing one
// is reused only when it carries dev: "true" and this project's and this
// user's labels, or is already owned by this dev agent (and a source must
// also serve this project, user and pack); anything else answers 409 with
// a failed result per refused object, nothing written. A dev agent being
// deleted answers 503 with RetryAfterSeconds, nothing written.
//
// Two applies of the same intent at once both succeed: the one whose
// create of the agent loses re-reads the agent that won and merges onto it
// (409 if what appeared is not this project's dev agent). The objects after
// the agent race the same way. A re-apply that changes nothing writes
// nothing.
func ApplyProject(ctx context.Context, c client.Client, namespace string, in *intent.DeployIntent, user string, opts Options) ProjectResult {
	a := &applier{c: c, r: opts.Reader, owner: opts.FieldOwner, check: opts.Check, ns: namespace}
	if a.r == nil {
		a.r = c
	}
	if a.owner == "" {
		a.owner = DefaultFieldOwner
	}
	if in.Credentials != nil {
		for _, v := range in.Credentials.Data {
			if v != "" {
				a.secrets = append(a.secrets, v)
			}
		}
	}
	done := func(status int, results []intent.ResourceResult) ProjectResult {
		st, body := a.finish(status, results)
		pr := ProjectResult{Status: st, Body: body}
		if st == http.StatusServiceUnavailable {
			pr.RetryAfter = RetryAfterSeconds
		}
		return pr
	}
	if in.Pack.Project == nil || user == "" {
		return done(http.StatusBadRequest, []intent.ResourceResult{failed(translate.KindAgentRuntime, in.Pack.Name,
			"a dev deploy needs pack.project and a user")})
	}
	p := &projectApply{applier: a, tr: translate.TranslateProject(in, namespace, user)}
	if status, results := p.precheck(ctx); status != 0 {
		return done(status, results)
	}

	agentRes, agentUID, conflict := p.agent(ctx)
	if conflict {
		return done(http.StatusConflict, []intent.ResourceResult{agentRes})
	}
	results := []intent.ResourceResult{agentRes}
	results = append(results, p.source(ctx, agentUID))
	tools := p.tr.Tools
	registryUID := types.UID("")
	if tools.ToolRegistryName != "" {
		var res intent.ResourceResult
		res, registryUID = p.toolRegistry(ctx, agentUID)
		results = append(results, res)
	}
	if tools.Secret != nil {
		if tools.ToolRegistryName == "" {
			results = append(results, failed(translate.KindSecret, tools.Secret.Name, "credentials require tools.handlers"))
		} else {
			results = append(results, p.secret(ctx, tools, registryUID))
		}
	}
	if tools.ToolPolicy != nil {
		if agentUID == "" {
			results = append(results, notApplied(translate.KindToolPolicy, tools.ToolPolicy.Name))
		} else {
			pol := tools.ToolPolicy.DeepCopy()
			pol.OwnerReferences = []metav1.OwnerReference{ownerRef(translate.KindAgentRuntime, p.tr.Name, agentUID)}
			results = append(results, p.upsertOurs(ctx, translate.KindToolPolicy, pol, &v1alpha1.ToolPolicy{}, agentUID,
				func(live client.Object) (client.Object, bool) {
					l := live.(*v1alpha1.ToolPolicy)
					out := l.DeepCopy()
					out.Spec = pol.Spec
					overlay(out, pol)
					same := sameStoredSpec(translate.KindToolPolicy, l, out) && reflect.DeepEqual(l.Labels, out.Labels) &&
						reflect.DeepEqual(l.Annotations, out.Annotations) && reflect.DeepEqual(l.OwnerReferences, out.OwnerReferences)
					return out, !same
				}))
		}
	}
	status := http.StatusOK
	for _, r := range results {
		if r.Action == intent.ActionFailed {
			status = http.StatusMultiStatus
		}
	}
	return done(status, results)
}

type projectApply struct {
	*applier
	tr *translate.ProjectObjects
}

// notApplied is the result of an object not written because the dev agent
// that must own it did not apply: an unowned dev object would outlive it.
func notApplied(kind, name string) intent.ResourceResult {
	return failed(kind, name, "not written: the dev AgentRuntime that owns it did not apply")
}

// ours says whether an existing object may be reused by this dev deploy:
// it carries the dev label and this project's and user's labels, or is
// already owned by the live dev agent (agentUID, "" when there is none).
func (p *projectApply) ours(obj client.Object, agentUID types.UID) bool {
	l := obj.GetLabels()
	if l[translate.DevLabel] == "true" && l[translate.ArenaProjectLabel] == p.tr.ProjectID && l[translate.ArenaUserLabel] == p.tr.User {
		return true
	}
	return agentUID != "" && hasOwner(obj.GetOwnerReferences(), agentUID)
}

// sourceOurs adds the source's own check: the same project, user and pack.
func (p *projectApply) sourceOurs(s *v1alpha1.PromptPackSource, agentUID types.UID) bool {
	return p.ours(s, agentUID) && s.Spec.Type == v1alpha1.PromptPackSourceTypeProject &&
		s.Spec.Project.ID == p.tr.ProjectID && s.Spec.Project.User == p.tr.User && s.Spec.PackName == p.tr.Name
}

func (p *projectApply) takeOver(kind, name string) intent.ResourceResult {
	return failed(kind, name, kind+" "+name+" exists and is not this project's dev object (it lacks the "+
		translate.DevLabel+", "+translate.ArenaProjectLabel+"="+p.tr.ProjectID+" and "+translate.ArenaUserLabel+"="+p.tr.User+
		" labels and is not owned by the dev agent): a dev deploy never takes over an object it did not make; nothing was written")
}

// precheck reads every object the deploy would write, fresh, before any
// write: 503 when the dev agent is being deleted, 409 naming each object
// that is not this project's, 503 when one cannot be read.
func (p *projectApply) precheck(ctx context.Context) (int, []intent.ResourceResult) {
	var refused, unknown []intent.ResourceResult
	read := func(kind string, obj client.Object) bool {
		err := p.r.Get(ctx, client.ObjectKey{Namespace: p.ns, Name: obj.GetName()}, obj)
		if err == nil {
			return true
		}
		if !apierrors.IsNotFound(err) {
			unknown = append(unknown, failed(kind, obj.GetName(), apiError("reading", kind, obj.GetName(), err)+"; nothing was written"))
		}
		return false
	}
	name := p.tr.Name
	agentUID := types.UID("")
	live := &v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if read(translate.KindAgentRuntime, live) {
		if live.DeletionTimestamp != nil {
			return http.StatusServiceUnavailable, []intent.ResourceResult{failed(translate.KindAgentRuntime, name,
				"the dev AgentRuntime "+name+" is being deleted; nothing was written: retry the same intent after "+
					strconv.Itoa(RetryAfterSeconds)+"s and it is recreated once it is gone")}
		}
		if p.ours(live, "") {
			agentUID = live.UID
		} else {
			refused = append(refused, p.takeOver(translate.KindAgentRuntime, name))
		}
	}
	src := &v1alpha1.PromptPackSource{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if read(translate.KindPromptPackSource, src) && !p.sourceOurs(src, agentUID) {
		refused = append(refused, p.takeOver(translate.KindPromptPackSource, name))
	}
	tools := p.tr.Tools
	others := []struct {
		kind string
		obj  client.Object
	}{}
	if tools.ToolRegistryName != "" {
		others = append(others, struct {
			kind string
			obj  client.Object
		}{translate.KindToolRegistry, &v1alpha1.ToolRegistry{ObjectMeta: metav1.ObjectMeta{Name: tools.ToolRegistryName}}})
	}
	if tools.Secret != nil {
		others = append(others, struct {
			kind string
			obj  client.Object
		}{translate.KindSecret, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: tools.Secret.Name}}})
	}
	if tools.ToolPolicy != nil {
		others = append(others, struct {
			kind string
			obj  client.Object
		}{translate.KindToolPolicy, &v1alpha1.ToolPolicy{ObjectMeta: metav1.ObjectMeta{Name: tools.ToolPolicy.Name}}})
	}
	var registryUID types.UID
	for _, o := range others {
		if !read(o.kind, o.obj) {
			continue
		}
		ok := p.ours(o.obj, agentUID)
		if o.kind == translate.KindToolRegistry && ok {
			registryUID = o.obj.GetUID()
		}
		if o.kind == translate.KindSecret && !ok && registryUID != "" && hasOwner(o.obj.GetOwnerReferences(), registryUID) {
			ok = true // owned by this dev agent's registry
		}
		if !ok {
			refused = append(refused, p.takeOver(o.kind, o.obj.GetName()))
		}
	}
	switch {
	case len(refused) > 0:
		return http.StatusConflict, refused
	case len(unknown) > 0:
		return http.StatusServiceUnavailable, unknown
	}
	return 0, nil
}

// agent upserts the dev AgentRuntime, field-merged over the live one read
// fresh. An agent that appears between the check and the create (a
// concurrent apply of the same intent) is re-checked: this project's dev
// agent is merged onto, anything else is a conflict. It returns the
// agent's UID once it is applied or unchanged.
func (p *projectApply) agent(ctx context.Context) (intent.ResourceResult, types.UID, bool) {
	kind, name := translate.KindAgentRuntime, p.tr.Name
	ag := p.tr.Agent
	if ag.Err != nil {
		return failed(kind, name, ag.Err.Error()), "", false
	}
	for attempt := 0; ; attempt++ {
		live := &v1alpha1.AgentRuntime{}
		err := p.r.Get(ctx, client.ObjectKeyFromObject(ag.Desired), live)
		if apierrors.IsNotFound(err) {
			merged, _ := merge.Merge(nil, ag.Desired, ag.Options)
			if msg := p.denied(ctx, kind, merged, nil); msg != "" {
				return failed(kind, name, msg), "", false
			}
			err = p.create(ctx, merged)
			if err == nil {
				return result(kind, name, intent.ActionCreated), merged.UID, false
			}
			if apierrors.IsAlreadyExists(err) && attempt < conflictRetries {
				continue // a concurrent apply won the create: re-check it
			}
			return failed(kind, name, apiError("creating", kind, name, err)), "", false
		}
		if err != nil {
			return failed(kind, name, apiError("reading", kind, name, err)), "", false
		}
		if !p.ours(live, "") {
			return p.takeOver(kind, name), "", true
		}
		if live.DeletionTimestamp != nil {
			return failed(kind, name, "the dev AgentRuntime "+name+" began deleting during the deploy; retry the same intent"), "", false
		}
		merged, changed := merge.Merge(live, ag.Desired, ag.Options)
		// The dev labels are the server's on every write, not only a create.
		merged.Labels = mergeMaps(merged.Labels, p.tr.Labels)
		if !changed && reflect.DeepEqual(merged.Labels, live.Labels) {
			return result(kind, name, intent.ActionUnchanged), live.UID, false
		}
		if msg := p.denied(ctx, kind, merged, live); msg != "" {
			return failed(kind, name, msg), live.UID, false
		}
		err = p.update(ctx, merged)
		if err == nil {
			return result(kind, name, intent.ActionUpdated), live.UID, false
		}
		if apierrors.IsConflict(err) && attempt < conflictRetries {
			continue
		}
		return failed(kind, name, apiError("updating", kind, name, err)), live.UID, false
	}
}

// source creates the PromptPackSource owned by the agent, or adopts this
// project's existing one: it is given the agent as owner when it lacks it
// (no write when it has it). One that appeared meanwhile and is not this
// project's is refused.
func (p *projectApply) source(ctx context.Context, agentUID types.UID) intent.ResourceResult {
	kind, name := translate.KindPromptPackSource, p.tr.Name
	if agentUID == "" {
		return notApplied(kind, name)
	}
	ref := ownerRef(translate.KindAgentRuntime, p.tr.Name, agentUID)
	desired := p.tr.Source.DeepCopy()
	desired.OwnerReferences = []metav1.OwnerReference{ref}
	for attempt := 0; ; attempt++ {
		live := &v1alpha1.PromptPackSource{}
		err := p.r.Get(ctx, client.ObjectKeyFromObject(desired), live)
		if apierrors.IsNotFound(err) {
			if msg := p.denied(ctx, kind, desired, nil); msg != "" {
				return failed(kind, name, msg)
			}
			err = p.create(ctx, desired)
			if err == nil {
				return result(kind, name, intent.ActionCreated)
			}
			if apierrors.IsAlreadyExists(err) && attempt < conflictRetries {
				continue
			}
			return failed(kind, name, apiError("creating", kind, name, err))
		}
		if err != nil {
			return failed(kind, name, apiError("reading", kind, name, err))
		}
		if !p.sourceOurs(live, agentUID) {
			return p.takeOver(kind, name)
		}
		if hasOwner(live.OwnerReferences, agentUID) && sameLabels(live.Labels, p.tr.Labels) {
			return result(kind, name, intent.ActionUnchanged)
		}
		base := live.DeepCopy()
		live.Labels = mergeMaps(live.Labels, p.tr.Labels)
		if !hasOwner(live.OwnerReferences, agentUID) {
			live.OwnerReferences = append(live.OwnerReferences, ref)
		}
		err = p.c.Patch(ctx, live, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}), client.FieldOwner(p.owner))
		if err == nil {
			return result(kind, name, intent.ActionUpdated)
		}
		if apierrors.IsConflict(err) && attempt < conflictRetries {
			continue
		}
		return failed(kind, name, apiError("adopting", kind, name, err))
	}
}

// sameLabels says whether live carries every label of want.
func sameLabels(live, want map[string]string) bool {
	for k, v := range want {
		if live[k] != v {
			return false
		}
	}
	return true
}

// toolRegistry upserts the dev registry, owned by the agent: a re-apply
// updates its spec (unlike a published pack's), with no write when the
// stored spec, defaults allowed for, already says the same.
func (p *projectApply) toolRegistry(ctx context.Context, agentUID types.UID) (intent.ResourceResult, types.UID) {
	tools := p.tr.Tools
	kind, name := translate.KindToolRegistry, tools.ToolRegistryName
	if tools.ToolRegistryErr != nil {
		return failed(kind, name, tools.ToolRegistryErr.Error()), ""
	}
	if agentUID == "" {
		return notApplied(kind, name), ""
	}
	desired := tools.ToolRegistry.DeepCopy()
	desired.OwnerReferences = []metav1.OwnerReference{ownerRef(translate.KindAgentRuntime, p.tr.Name, agentUID)}
	var uid types.UID
	res := p.upsertOurs(ctx, kind, desired, &v1alpha1.ToolRegistry{}, agentUID, func(live client.Object) (client.Object, bool) {
		l := live.(*v1alpha1.ToolRegistry)
		uid = l.UID
		out := l.DeepCopy()
		out.Spec = desired.Spec
		overlay(out, desired)
		same := sameStoredSpec(kind, l, out) && reflect.DeepEqual(l.Labels, out.Labels) &&
			reflect.DeepEqual(l.Annotations, out.Annotations) && reflect.DeepEqual(l.OwnerReferences, out.OwnerReferences)
		return out, !same
	})
	if res.Action == intent.ActionCreated {
		uid = desired.UID
	}
	if res.Action == intent.ActionFailed {
		uid = ""
	}
	return res, uid
}

// upsertOurs is upsert with the take-over check on every live object it
// reads (one created by a concurrent apply included).
func (p *projectApply) upsertOurs(ctx context.Context, kind string, desired, live client.Object, agentUID types.UID,
	update func(live client.Object) (client.Object, bool)) intent.ResourceResult {
	refused := false
	res := p.upsert(ctx, kind, desired, live, func(l client.Object) (client.Object, bool) {
		if !p.ours(l, agentUID) {
			refused = true
			return l, false
		}
		return update(l)
	})
	if refused {
		return p.takeOver(kind, desired.GetName())
	}
	return res
}
