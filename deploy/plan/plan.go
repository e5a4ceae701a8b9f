package plan

import (
	"context"
	"sort"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/rules/schema"
)

// The diagnostic codes of deploy-intent.md § Diagnostic codes.
const (
	CodeInvalidBinding       = "invalid_binding"
	CodeProviderNotFound     = "provider_not_found"
	CodeProviderNotReady     = "provider_not_ready"
	CodeProviderRoleMismatch = "provider_role_mismatch"
	CodeToolRegistryNotFound = "tool_registry_not_found"
	CodeSkillSourceNotFound  = "skill_source_not_found"
	CodeNoDeployConfig       = "no_deploy_config"
	CodeNoDeployProvider     = "no_deploy_provider"
	CodeNoProviderBindings   = "no_provider_bindings"
)

// The tool registry modes.
const (
	ModeNone   = "none"
	ModeBind   = "bind"
	ModeCreate = "create"
)

// DeployProvider is the deploy.provider a kit deploys to Omnia with.
const DeployProvider = "omnia"

// Diagnostic paths, relative to the deploy block.
const (
	pathDeploy          = "deploy"
	pathDeployProvider  = "deploy.provider"
	pathProviders       = "deploy.config.providers"
	pathToolRegistryRef = "deploy.config.tool_registry_ref"
	pathSkills          = "deploy.config.skills"
)

// placeholderRef stands for a Provider name in a remediation when the
// workspace has no usable llm Provider to suggest.
const placeholderRef = "<a Provider in this workspace>"

// Plan resolves req's provider, tool-registry and skill bindings against
// namespace, read-only, from reader (the operator's informer cache), and
// answers with the spec's diagnostics. Providers, Skills and Diagnostics are
// never nil; bindings keep input order; a provider's role defaults to llm.
//
// A binding's shape is judged by the catalog: a provider binding as the
// AgentRuntime CRD judges spec.providers (rules.AgentRuntimeProviderBindings:
// name pattern and length, ref, supported roles, unique names), a role
// mismatch by the agentruntime/provider-role decision
// (rules.AgentRuntimeProviderRoleMismatch), and every ref (provider,
// tool_registry_ref, skill source) by the API server's object name rule
// (a DNS subdomain), since it names an object. A lookup that fails for
// another reason than not-found is reported with the not-found code of its
// kind and the error in the message, never as resolved.
func Plan(ctx context.Context, reader client.Reader, namespace string, req *Request) intent.PlanResponse {
	p := &planner{ctx: ctx, reader: reader, namespace: namespace}
	resp := intent.PlanResponse{
		Providers:    []intent.PlanProvider{},
		Skills:       []intent.PlanSkill{},
		Diagnostics:  []intent.Diagnostic{},
		ToolRegistry: intent.PlanToolRegistry{Mode: ModeNone, Resolved: true},
	}
	if req == nil || !req.HasDeploy {
		resp.Diagnostics = append(resp.Diagnostics, p.noDeployConfig())
		return resp
	}
	if req.Source == FieldArenaConfig && req.Provider == "" {
		resp.Diagnostics = append(resp.Diagnostics, intent.Diagnostic{
			Code:    CodeNoDeployProvider,
			Path:    pathDeployProvider,
			Message: "the deploy block names no provider; the bindings still plan, but PromptArena's compiler refuses the project (spec.deploy: provider is required)",
			Remediation: "set spec.deploy.provider: " + DeployProvider +
				" (deploy.provider in a flattened arena config)",
		})
	}
	if len(req.Providers) == 0 {
		resp.Diagnostics = append(resp.Diagnostics, noProviderBindings(req.Environments))
	}
	resp.Providers, resp.Diagnostics = p.providers(req.Providers, resp.Providers, resp.Diagnostics)
	resp.ToolRegistry, resp.Diagnostics = p.toolRegistry(req, resp.Diagnostics)
	resp.Skills, resp.Diagnostics = p.skills(req.Skills, resp.Skills, resp.Diagnostics)
	return resp
}

type planner struct {
	ctx       context.Context
	reader    client.Reader
	namespace string
}

// get reads one object of the workspace: found, or the error when the
// lookup failed for another reason than not-found.
func (p *planner) get(name string, obj client.Object) (bool, error) {
	err := p.reader.Get(p.ctx, types.NamespacedName{Namespace: p.namespace, Name: name}, obj)
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err):
		return false, nil
	default:
		return false, err
	}
}

// lookupFailed is the message of a lookup that failed for another reason
// than not-found.
func lookupFailed(kind, name string, err error) string {
	return "looking up " + kind + " " + strconv.Quote(name) + " failed: " + err.Error()
}

// objectName reports why ref is not an object name (the API server's rule
// for a custom resource's metadata.name: a DNS subdomain), or "".
func objectName(ref string) string {
	if ref == "" {
		return "it is empty"
	}
	if msgs := apivalidation.NameIsDNSSubdomain(ref, false); len(msgs) > 0 {
		return strings.Join(msgs, "; ")
	}
	return ""
}

func (p *planner) noDeployConfig() intent.Diagnostic {
	ref := placeholderRef
	var list v1alpha1.ProviderList
	if err := p.reader.List(p.ctx, &list, client.InNamespace(p.namespace)); err == nil {
		var names []string
		for i := range list.Items {
			pr := &list.Items[i]
			if rules.AgentRuntimeProviderRole(string(pr.Spec.Role)) == string(v1alpha1.ProviderRoleLLM) && providerUsable(pr) {
				names = append(names, list.Items[i].Name)
			}
		}
		if len(names) > 0 {
			sort.Strings(names)
			ref = names[0]
		}
	}
	return intent.Diagnostic{
		Code:    CodeNoDeployConfig,
		Path:    pathDeploy,
		Message: "the arena config has no deploy block (neither spec.deploy nor deploy), so there is nothing to plan",
		Remediation: "add this deploy block under spec (top level in a flattened arena config): " +
			"deploy: {provider: " + DeployProvider + ", config: {providers: [{name: default, ref: " + ref + ", role: llm}]}}",
	}
}

func noProviderBindings(envs []Environment) intent.Diagnostic {
	d := intent.Diagnostic{
		Code:        CodeNoProviderBindings,
		Path:        pathProviders,
		Message:     "deploy.config.providers is empty: the kit binds no Provider",
		Remediation: "add a binding under spec.deploy.config.providers, e.g. {name: default, ref: " + placeholderRef + ", role: llm}",
	}
	if len(envs) == 0 {
		return d
	}
	var parts []string
	for _, env := range envs {
		var bs []string
		for _, b := range env.Providers {
			bs = append(bs, b.Name+" → "+b.Ref)
		}
		parts = append(parts, "deploy.environments."+env.Name+": "+strings.Join(bs, ", "))
	}
	d.Message = "deploy.config.providers is empty; the kit's providers are only under deploy.environments, which this endpoint does not read (it reads only deploy.config)"
	d.Remediation = "copy the bindings to plan into spec.deploy.config.providers; found " + strings.Join(parts, "; ")
	return d
}

// providerField maps a binding finding's field below spec.providers[i] to
// the binding's key.
var providerField = map[string]string{".name": "name", ".providerRef.name": "ref", ".role": "role"}

func (p *planner) providers(bs []ProviderBinding, out []intent.PlanProvider, diags []intent.Diagnostic) ([]intent.PlanProvider, []intent.Diagnostic) {
	entries := make([]v1alpha1.AgentRuntimeProvider, len(bs))
	for i, b := range bs {
		entries[i] = v1alpha1.AgentRuntimeProvider{Name: b.Name, ProviderRef: v1alpha1.NamespacedObjectReference{Name: b.Ref},
			Role: v1alpha1.AgentRuntimeProviderRole(b.Role)}
	}
	var judged [][]rules.Finding
	var judgeErr error
	if len(entries) > 0 {
		sv, err := schema.Default()
		if err == nil {
			judged, err = rules.AgentRuntimeProviderBindings(p.ctx, sv, entries)
		}
		judgeErr = err
	}
	found := map[string]*v1alpha1.Provider{}
	for i, b := range bs {
		base := index(pathProviders, i)
		role := rules.AgentRuntimeProviderRole(b.Role)
		n := len(diags)
		bad := map[string]bool{}
		if judgeErr != nil {
			diags = append(diags, invalidBinding(base, "the binding could not be judged: "+judgeErr.Error(),
				"retry; the operator could not load the AgentRuntime schema"))
			bad["name"], bad["ref"], bad["role"] = true, true, true
		}
		if judged != nil {
			for _, f := range judged[i] {
				key := providerField[strings.TrimPrefix(f.Field, "spec.providers["+strconv.Itoa(i)+"]")]
				bad[key] = true
				diags = append(diags, providerInvalid(base, key, b, f))
			}
		}
		if !bad["ref"] {
			if why := objectName(b.Ref); why != "" {
				bad["ref"] = true
				diags = append(diags, invalidBinding(base+".ref",
					"provider ref "+strconv.Quote(b.Ref)+" is not a valid object name: "+why,
					"set ref to the name of a Provider in this workspace"))
			}
		}
		if !bad["ref"] {
			diags = p.provider(base, b, role, !bad["role"], found, diags)
		}
		out = append(out, intent.PlanProvider{Name: b.Name, Ref: b.Ref, Role: role, Resolved: len(diags) == n})
	}
	return out, diags
}

// provider looks a well-formed ref up: not found, not ready, then (when the
// binding's role is supported) the role decision.
func (p *planner) provider(base string, b ProviderBinding, role string, roleOK bool, found map[string]*v1alpha1.Provider, diags []intent.Diagnostic) []intent.Diagnostic {
	prov, seen := found[b.Ref]
	if !seen {
		prov = &v1alpha1.Provider{}
		ok, err := p.get(b.Ref, prov)
		if err != nil {
			return append(diags, intent.Diagnostic{Code: CodeProviderNotFound, Path: base + ".ref",
				Message:     lookupFailed("Provider", b.Ref, err),
				Remediation: "retry; if it persists, check that the operator can read Providers in namespace " + p.namespace})
		}
		if !ok {
			prov = nil
		}
		found[b.Ref] = prov
	}
	if prov == nil {
		return append(diags, intent.Diagnostic{Code: CodeProviderNotFound, Path: base + ".ref",
			Message: "provider " + strconv.Quote(b.Ref) + " not found in this workspace (namespace " + p.namespace + ")",
			Remediation: "create Provider " + b.Ref + " in namespace " + p.namespace +
				", or change the ref to an existing Provider (a Provider created a moment ago may not be seen yet)"})
	}
	if phase := prov.Status.Phase; !providerUsable(prov) {
		return append(diags, intent.Diagnostic{Code: CodeProviderNotReady, Path: base + ".ref",
			Message:     "provider " + strconv.Quote(b.Ref) + " is not ready (phase: " + string(phase) + ")",
			Remediation: "wait for Provider " + b.Ref + " to become Ready (phase: " + string(phase) + "), or change the ref"})
	}
	if !roleOK {
		return diags
	}
	if want, got, mismatch := rules.AgentRuntimeProviderRoleMismatch(role, string(prov.Spec.Role)); mismatch {
		return append(diags, intent.Diagnostic{Code: CodeProviderRoleMismatch, Path: base + ".role",
			Message: "[" + rules.AgentRuntimeProviderRoleID + "] provider " + strconv.Quote(b.Ref) + " has role " + got +
				" but the binding requires " + want + "; an agent bound this way fails (RoleMismatch)",
			Remediation: "set role: " + got + " on the binding, or reference a Provider with role " + want})
	}
	return diags
}

// providerUsable is the plan's readiness, the AgentRuntime rule's decision:
// phase Ready, or no phase yet (deploy-intent.md § Checking a plan: "its
// phase is Ready or empty", so the plan asks as if statuses were not
// observed).
func providerUsable(p *v1alpha1.Provider) bool {
	return rules.AgentRuntimeProviderUsable(p, false)
}

// providerInvalid turns a catalog finding on a provider binding into an
// invalid_binding diagnostic at the binding's key.
func providerInvalid(base, key string, b ProviderBinding, f rules.Finding) intent.Diagnostic {
	path, rem := base, "fix the binding"
	switch key {
	case "name":
		path = base + ".name"
		rem = "give the binding a unique name of lower-case letters, digits and '-' (at most 63 characters), e.g. default"
		if f.RuleID == rules.AgentRuntimeProviderNamesUniqueID {
			rem = "rename this binding: an earlier binding is already named " + strconv.Quote(b.Name) + ", and each needs its own name"
		}
	case "ref":
		path = base + ".ref"
		rem = "set ref to the name of a Provider in this workspace"
	case "role":
		path = base + ".role"
		rem = "set role to a supported role (llm, embedding, rerank, tts, stt, image, inference), or leave it out for llm"
	}
	return invalidBinding(path, "provider binding "+strconv.Quote(b.Name)+": ["+f.RuleID+"] "+f.Message, rem)
}

func invalidBinding(path, msg, rem string) intent.Diagnostic {
	return intent.Diagnostic{Code: CodeInvalidBinding, Path: path, Message: msg, Remediation: rem}
}

func (p *planner) toolRegistry(req *Request, diags []intent.Diagnostic) (intent.PlanToolRegistry, []intent.Diagnostic) {
	if req.ToolRegistryRef == nil {
		if len(req.Tools) > 0 {
			return intent.PlanToolRegistry{Mode: ModeCreate, Resolved: true, Tools: req.Tools}, diags
		}
		return intent.PlanToolRegistry{Mode: ModeNone, Resolved: true}, diags
	}
	ref := *req.ToolRegistryRef
	tr := intent.PlanToolRegistry{Mode: ModeBind, Name: ref}
	n := len(diags)
	if len(req.Tools) > 0 {
		diags = append(diags, invalidBinding(pathToolRegistryRef,
			"both tool_registry_ref and tools are set: a kit binds an existing ToolRegistry or creates one from its inline tools, not both",
			"remove deploy.config.tools to bind ToolRegistry "+strconv.Quote(ref)+", or remove tool_registry_ref to create one"))
	}
	if why := objectName(ref); why != "" {
		diags = append(diags, invalidBinding(pathToolRegistryRef,
			"tool_registry_ref "+strconv.Quote(ref)+" is not a valid object name: "+why,
			"set tool_registry_ref to the name of a ToolRegistry in this workspace, or remove it"))
		return tr, diags
	}
	ok, err := p.get(ref, &v1alpha1.ToolRegistry{})
	switch {
	case err != nil:
		diags = append(diags, intent.Diagnostic{Code: CodeToolRegistryNotFound, Path: pathToolRegistryRef,
			Message:     lookupFailed("ToolRegistry", ref, err),
			Remediation: "retry; if it persists, check that the operator can read ToolRegistries in namespace " + p.namespace})
	case !ok:
		diags = append(diags, intent.Diagnostic{Code: CodeToolRegistryNotFound, Path: pathToolRegistryRef,
			Message: "tool registry " + strconv.Quote(ref) + " not found in this workspace (namespace " + p.namespace + ")",
			Remediation: "create ToolRegistry " + ref + " in namespace " + p.namespace +
				", change tool_registry_ref to an existing one, or replace it with inline tools"})
	}
	tr.Resolved = len(diags) == n
	return tr, diags
}

func (p *planner) skills(ss []SkillBinding, out []intent.PlanSkill, diags []intent.Diagnostic) ([]intent.PlanSkill, []intent.Diagnostic) {
	found := map[string]bool{}
	for i, s := range ss {
		path := index(pathSkills, i) + ".source"
		n := len(diags)
		if why := objectName(s.Source); why != "" {
			diags = append(diags, invalidBinding(path,
				"skill source "+strconv.Quote(s.Source)+" is not a valid object name: "+why,
				"set source to the name of a SkillSource in this workspace"))
		} else {
			ok, seen := found[s.Source]
			var err error
			if !seen {
				ok, err = p.get(s.Source, &v1alpha1.SkillSource{})
				if err == nil {
					found[s.Source] = ok
				}
			}
			switch {
			case err != nil:
				diags = append(diags, intent.Diagnostic{Code: CodeSkillSourceNotFound, Path: path,
					Message:     lookupFailed("SkillSource", s.Source, err),
					Remediation: "retry; if it persists, check that the operator can read SkillSources in namespace " + p.namespace})
			case !ok:
				diags = append(diags, intent.Diagnostic{Code: CodeSkillSourceNotFound, Path: path,
					Message:     "skill source " + strconv.Quote(s.Source) + " not found in this workspace (namespace " + p.namespace + ")",
					Remediation: "create SkillSource " + s.Source + " in namespace " + p.namespace + ", or change the source to an existing one"})
			}
		}
		out = append(out, intent.PlanSkill{Source: s.Source, Resolved: len(diags) == n})
	}
	return out, diags
}
