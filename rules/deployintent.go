package rules

import (
	"regexp"
	"slices"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/licensing"
)

// The deploy-intent rules that live only in validation
// (deploy-intent.md#rules-that-live-only-in-validation): structural rules
// the schema of record (api/openapi/openapi.yaml) cannot express, enforced
// by the deploy API at the door with a 400.
//
// A deploy intent is not a Kubernetes object, and rules/ may not import
// deploy/ (ARCHITECTURE.md § Rooms: deploy imports rules, not the reverse).
// So the rules take a minimal view of the intent, DeployIntent below: only
// what they read (presence of blocks, names, counts, the few values a rule
// judges), never a credential value. deploy/intent builds the view from its
// wire type (intent.View) and evaluates it through the same
// Catalog.Evaluate path as every other kind, under the kind "DeployIntent",
// so `omniactl rules` lists these rules and docs/rules.md documents them.
//
// Every rule is of the admission stage and denies: the deploy API answers
// 400 with the findings (rule ID, field path, message). Field paths are the
// intent's JSON paths (agents[0].idleTimeout).

// KindDeployIntent is the deploy intent's catalog kind.
const KindDeployIntent = "DeployIntent"

var deployIntentKinds = []string{KindDeployIntent}

// Rule IDs of the deploy intent, for callers that name one.
const (
	DeployIntentAgentsRequiredRuleID        = "deployintent/agents-required"
	DeployIntentProvidersRequiredRuleID     = "deployintent/providers-required"
	DeployIntentToolsRefXorHandlersRuleID   = "deployintent/tools-ref-xor-handlers"
	DeployIntentCredentialsHandlersRuleID   = "deployintent/credentials-need-handlers"
	DeployIntentCredentialKeyRuleID         = "deployintent/credential-key-pattern"
	DeployIntentPolicyNeedsToolsRuleID      = "deployintent/policy-needs-tools"
	DeployIntentPolicyLicenseRuleID         = "deployintent/policy-license"
	DeployIntentIdleTimeoutRuleID           = "deployintent/idle-timeout-positive"
	DeployIntentProjectExcludesRuleID       = "deployintent/project-excludes-content"
	DeployIntentProjectLicenseRuleID        = "deployintent/project-license"
	DeployIntentProjectIDRuleID             = "deployintent/project-id-pattern"
	DeployIntentProjectNamesRuleID          = "deployintent/project-names-derived"
	DeployIntentProjectShapeRuleID          = "deployintent/project-shape"
	DeployIntentProjectPolicyHandlersRuleID = "deployintent/project-policy-needs-handlers"
)

// DeployIntent is the rules' view of a deploy intent (deploy/intent's
// DeployIntent): what the validation-only rules read, and nothing else.
// Blocks the intent omits are nil; an empty list counts as omitted, as it
// does on the wire (every list here is omitempty there).
type DeployIntent struct {
	Pack        DeployIntentPack
	Tools       *DeployIntentTools
	Policy      *DeployIntentPolicy
	Credentials *DeployIntentCredentials
	Agents      []DeployIntentAgent
	// DerivedName is the dev-<id>-<user> name of a pack.project intent,
	// computed by the server from the project id and the caller's verified
	// user (intent.DevName). Empty when not known (no project, or a caller
	// with no user, which the server refuses with 403 before validation):
	// deployintent/project-names-derived then has nothing to compare.
	DerivedName string
}

// DeployIntentPack is the view of pack.
type DeployIntentPack struct {
	Name    string
	Version string
	// HasContent: pack.content is set.
	HasContent bool
	// Project is pack.project, nil when absent.
	Project *DeployIntentProject
	// Skills is the number of pack.skills entries.
	Skills int
	// HasSkillsConfig: pack.skillsConfig is set.
	HasSkillsConfig bool
}

// DeployIntentProject is the view of pack.project.
type DeployIntentProject struct {
	ID string
}

// DeployIntentTools is the view of a tools block that is present.
type DeployIntentTools struct {
	Ref string
	// Handlers is the number of tools.handlers entries.
	Handlers int
}

// DeployIntentPolicy is the view of a policy block that is present.
type DeployIntentPolicy struct {
	// ToolBlocklist is the number of policy.toolBlocklist entries.
	ToolBlocklist int
}

// DeployIntentCredentials is the view of a credentials block that is
// present: its keys, never its values.
type DeployIntentCredentials struct {
	Keys []string
}

// DeployIntentAgent is the view of one agents[] entry.
type DeployIntentAgent struct {
	Name        string
	IdleTimeout string
	Providers   []DeployIntentProvider
	HasRollout  bool
	Facades     []DeployIntentFacade
}

// DeployIntentProvider is the view of one agents[].providers[] entry.
type DeployIntentProvider struct {
	Name, Ref string
}

// DeployIntentFacade is the view of one agents[].facades[] entry.
type DeployIntentFacade struct {
	Type            string
	ManagementPlane *bool
	DataPlane       *bool
}

// GetObjectKind implements runtime.Object: an intent carries its apiVersion
// in its own document, not a Kubernetes type meta.
func (in *DeployIntent) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject implements runtime.Object.
func (in *DeployIntent) DeepCopyObject() runtime.Object {
	if in == nil {
		return nil
	}
	out := *in
	if in.Pack.Project != nil {
		p := *in.Pack.Project
		out.Pack.Project = &p
	}
	if in.Tools != nil {
		t := *in.Tools
		out.Tools = &t
	}
	if in.Policy != nil {
		p := *in.Policy
		out.Policy = &p
	}
	if in.Credentials != nil {
		out.Credentials = &DeployIntentCredentials{Keys: slices.Clone(in.Credentials.Keys)}
	}
	if in.Agents != nil {
		out.Agents = make([]DeployIntentAgent, len(in.Agents))
		for i, a := range in.Agents {
			a.Providers = slices.Clone(a.Providers)
			if a.Facades != nil {
				fs := make([]DeployIntentFacade, len(a.Facades))
				for j, f := range a.Facades {
					if f.ManagementPlane != nil {
						v := *f.ManagementPlane
						f.ManagementPlane = &v
					}
					if f.DataPlane != nil {
						v := *f.DataPlane
						f.DataPlane = &v
					}
					fs[j] = f
				}
				a.Facades = fs
			}
			out.Agents[i] = a
		}
	}
	return &out
}

// EvaluateDeployIntent runs every deploy-intent rule of Default on in, with
// facts for the licence (NoFacts, the open-core licence, when nil).
func EvaluateDeployIntent(in *DeployIntent, facts Facts) []Finding {
	return Default.Evaluate(KindDeployIntent, Input{Object: in, Facts: facts}, Options{})
}

// deployIntentProjectIDPattern is the PromptPackSource rule for a project id
// (deploy-intent.md: "the PromptPackSource rule"), at most
// deployIntentProjectIDMax characters so it can be a label value.
var deployIntentProjectIDPattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$`)

const deployIntentProjectIDMax = 63

// DeployIntentFacadeWebsocket is the one facade type a dev agent has.
const DeployIntentFacadeWebsocket = "websocket"

const deployIntentSpec = "deploy-intent.md#rules-that-live-only-in-validation"

func init() {
	for _, r := range []Rule{
		{
			ID:    DeployIntentAgentsRequiredRuleID,
			Doc:   "agents is required and has at least one entry (deploy-intent-fields.md: agents, required, at least one).",
			Spec:  "deploy-intent-fields.md",
			Check: checkDeployIntentAgentsRequired,
		},
		{
			ID:    DeployIntentProvidersRequiredRuleID,
			Doc:   "Every agents[] entry has at least one provider, and each agents[].providers[] entry has a name and a ref (deploy-intent-fields.md: providers and its name and ref are required).",
			Spec:  "deploy-intent-fields.md",
			Check: checkDeployIntentProvidersRequired,
		},
		{
			ID:    DeployIntentToolsRefXorHandlersRuleID,
			Doc:   "A tools block sets exactly one of tools.ref (an existing ToolRegistry) and tools.handlers (a registry to create).",
			Spec:  deployIntentSpec,
			Check: checkDeployIntentToolsXor,
		},
		{
			ID:    DeployIntentCredentialsHandlersRuleID,
			Doc:   "credentials requires tools.handlers: with tools.ref the registry is operator-owned and its Secret references stay untouched.",
			Spec:  deployIntentSpec,
			Check: checkDeployIntentCredentialsNeedHandlers,
		},
		{
			ID:    DeployIntentCredentialKeyRuleID,
			Doc:   "Every credentials.data key matches [-._a-zA-Z0-9]+: it is kept verbatim as the credential Secret's key. Only keys are reported, never values.",
			Spec:  "deploy-intent.md#credentials",
			Check: checkDeployIntentCredentialKeys,
		},
		{
			ID:    DeployIntentPolicyNeedsToolsRuleID,
			Doc:   "policy (policy.toolBlocklist) requires a tools block: a ToolPolicy selects the intent's registry.",
			Spec:  deployIntentSpec,
			Check: checkDeployIntentPolicyNeedsTools,
		},
		{
			ID: DeployIntentPolicyLicenseRuleID,
			Doc: "policy (policy.toolBlocklist) requires an enterprise operator: a licence granting " + licensing.FeaturePolicyProxy +
				" (ToolPolicy enforcement, licensing/).",
			Spec:  deployIntentSpec,
			Check: checkDeployIntentPolicyLicense,
		},
		{
			ID:    DeployIntentIdleTimeoutRuleID,
			Doc:   "agents[].idleTimeout, when set, is a positive Go duration (it becomes the omnia.altairalabs.ai/idle-timeout annotation).",
			Spec:  deployIntentSpec,
			Check: checkDeployIntentIdleTimeout,
		},
		{
			ID:    DeployIntentProjectExcludesRuleID,
			Doc:   "pack.project excludes pack.content, pack.version, pack.skills and pack.skillsConfig.",
			Spec:  deployIntentSpec,
			Check: checkDeployIntentProjectExcludes,
		},
		{
			ID:    DeployIntentProjectLicenseRuleID,
			Doc:   "pack.project (a dev agent for an Arena project) requires an enterprise operator: a licence of the enterprise tier.",
			Spec:  "deploy-intent.md#deploying-a-project-to-a-dev-agent",
			Check: checkDeployIntentProjectLicense,
		},
		{
			ID:    DeployIntentProjectIDRuleID,
			Doc:   "pack.project.id matches ^[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$ (the PromptPackSource rule) and is at most 63 characters, so it can be a label value.",
			Spec:  deployIntentSpec,
			Check: checkDeployIntentProjectID,
		},
		{
			ID: DeployIntentProjectNamesRuleID,
			Doc: "With pack.project, pack.name and agents[].name are empty or equal to the derived dev-<id>-<user> name " +
				"(the server derives it from the project id and the caller's verified user; sanitized id plus a hash when that is not a DNS label).",
			Spec:  "deploy-intent.md#deploying-a-project-to-a-dev-agent",
			Check: checkDeployIntentProjectNames,
		},
		{
			ID: DeployIntentProjectShapeRuleID,
			Doc: "With pack.project, the intent has exactly one agent, and that agent has an idleTimeout, no rollout, and a single websocket facade " +
				"with dataPlane: false (set explicitly) and managementPlane not false.",
			Spec:  deployIntentSpec,
			Check: checkDeployIntentProjectShape,
		},
		{
			ID: DeployIntentProjectPolicyHandlersRuleID,
			Doc: "With pack.project, policy.toolBlocklist is allowed only with tools.handlers, never with tools.ref: a ToolPolicy selects a registry, " +
				"so a dev policy on a referenced registry would change the tools of every agent that uses it.",
			Spec:  deployIntentSpec,
			Check: checkDeployIntentProjectPolicyHandlers,
		},
	} {
		r.Kinds = deployIntentKinds
		r.Stage = StageAdmission
		r.Severity = SeverityDeny
		Default.Register(r)
	}
}

func deployIntentOf(in Input) *DeployIntent {
	di, _ := in.Object.(*DeployIntent)
	return di
}

// deployIntentProject returns the intent when it is a pack.project intent.
func deployIntentProject(in Input) *DeployIntent {
	di := deployIntentOf(in)
	if di == nil || di.Pack.Project == nil {
		return nil
	}
	return di
}

var (
	diPackPath        = field.NewPath("pack")
	diToolsPath       = field.NewPath("tools")
	diAgentsPath      = field.NewPath("agents")
	diPolicyPath      = field.NewPath("policy")
	diCredentialsPath = field.NewPath("credentials")
)

func checkDeployIntentAgentsRequired(in Input) field.ErrorList {
	di := deployIntentOf(in)
	if di == nil || len(di.Agents) > 0 {
		return nil
	}
	return field.ErrorList{field.Required(diAgentsPath, "an intent deploys at least one agent; add an agents entry")}
}

func checkDeployIntentProvidersRequired(in Input) field.ErrorList {
	di := deployIntentOf(in)
	if di == nil {
		return nil
	}
	var errs field.ErrorList
	for i, a := range di.Agents {
		p := diAgentsPath.Index(i).Child("providers")
		if len(a.Providers) == 0 {
			errs = append(errs, field.Required(p, "an agent needs at least one provider; add { name, ref } naming a Provider of the workspace"))
			continue
		}
		for j, pr := range a.Providers {
			if pr.Name == "" {
				errs = append(errs, field.Required(p.Index(j).Child("name"), "a provider binding needs a name"))
			}
			if pr.Ref == "" {
				errs = append(errs, field.Required(p.Index(j).Child("ref"), "a provider binding needs a ref naming a Provider of the workspace"))
			}
		}
	}
	return errs
}

func checkDeployIntentToolsXor(in Input) field.ErrorList {
	di := deployIntentOf(in)
	if di == nil || di.Tools == nil {
		return nil
	}
	switch hasRef, hasHandlers := di.Tools.Ref != "", di.Tools.Handlers > 0; {
	case hasRef && hasHandlers:
		return field.ErrorList{field.Forbidden(diToolsPath.Child("handlers"),
			"tools.ref and tools.handlers are mutually exclusive: tools.ref references an existing ToolRegistry, tools.handlers creates one; keep one")}
	case !hasRef && !hasHandlers:
		return field.ErrorList{field.Required(diToolsPath,
			"a tools block sets exactly one of tools.ref (an existing ToolRegistry) and tools.handlers (a registry to create); set one or remove tools")}
	}
	return nil
}

func checkDeployIntentCredentialsNeedHandlers(in Input) field.ErrorList {
	di := deployIntentOf(in)
	if di == nil || di.Credentials == nil || (di.Tools != nil && di.Tools.Handlers > 0) {
		return nil
	}
	return field.ErrorList{field.Forbidden(diCredentialsPath,
		"credentials requires tools.handlers: with tools.ref (or no tools) the registry is operator-owned and its Secret references stay untouched; remove credentials or create the registry with tools.handlers")}
}

func checkDeployIntentCredentialKeys(in Input) field.ErrorList {
	di := deployIntentOf(in)
	if di == nil || di.Credentials == nil {
		return nil
	}
	keys := slices.Clone(di.Credentials.Keys)
	slices.Sort(keys)
	var errs field.ErrorList
	for _, k := range keys {
		if len(validation.IsConfigMapKey(k)) > 0 {
			errs = append(errs, field.Invalid(diCredentialsPath.Child("data").Key(k), k,
				"credential key "+strconv.Quote(k)+" does not match [-._a-zA-Z0-9]+: it is the credential Secret's key and the environment-variable name a handler's headers_from_env references; rename it"))
		}
	}
	return errs
}

func checkDeployIntentPolicyNeedsTools(in Input) field.ErrorList {
	di := deployIntentOf(in)
	if di == nil || di.Policy == nil || di.Tools != nil {
		return nil
	}
	return field.ErrorList{field.Forbidden(diPolicyPath.Child("toolBlocklist"),
		"policy.toolBlocklist requires tools: a ToolPolicy selects the intent's ToolRegistry; add tools.ref or tools.handlers, or remove policy")}
}

func checkDeployIntentPolicyLicense(in Input) field.ErrorList {
	di := deployIntentOf(in)
	if di == nil || di.Policy == nil || in.Facts.License().Has(licensing.FeaturePolicyProxy) {
		return nil
	}
	return field.ErrorList{field.Forbidden(diPolicyPath.Child("toolBlocklist"),
		"policy.toolBlocklist needs an enterprise licence granting the "+licensing.FeaturePolicyProxy+" feature (ToolPolicy enforcement); install one, or remove policy")}
}

func checkDeployIntentIdleTimeout(in Input) field.ErrorList {
	di := deployIntentOf(in)
	if di == nil {
		return nil
	}
	var errs field.ErrorList
	for i, a := range di.Agents {
		if a.IdleTimeout == "" {
			continue
		}
		if d, err := time.ParseDuration(a.IdleTimeout); err != nil || d <= 0 {
			errs = append(errs, field.Invalid(diAgentsPath.Index(i).Child("idleTimeout"), a.IdleTimeout,
				"idleTimeout "+strconv.Quote(a.IdleTimeout)+" is not a positive Go duration; use e.g. 30m or 2h, or omit it (an agent without one is never reaped)"))
		}
	}
	return errs
}

func checkDeployIntentProjectExcludes(in Input) field.ErrorList {
	di := deployIntentProject(in)
	if di == nil {
		return nil
	}
	var errs field.ErrorList
	const why = " is not allowed with pack.project: a project deploys the project's current source, not published content; remove it"
	if di.Pack.HasContent {
		errs = append(errs, field.Forbidden(diPackPath.Child("content"), "pack.content"+why))
	}
	if di.Pack.Version != "" {
		errs = append(errs, field.Forbidden(diPackPath.Child("version"), "pack.version"+why))
	}
	if di.Pack.Skills > 0 {
		errs = append(errs, field.Forbidden(diPackPath.Child("skills"), "pack.skills"+why))
	}
	if di.Pack.HasSkillsConfig {
		errs = append(errs, field.Forbidden(diPackPath.Child("skillsConfig"), "pack.skillsConfig"+why))
	}
	return errs
}

func checkDeployIntentProjectLicense(in Input) field.ErrorList {
	di := deployIntentProject(in)
	if di == nil || in.Facts.License().Enterprise() {
		return nil
	}
	return field.ErrorList{field.Forbidden(diPackPath.Child("project"),
		"pack.project (a dev agent for an Arena project) needs an enterprise licence; install one, or deploy published content with pack.content")}
}

func checkDeployIntentProjectID(in Input) field.ErrorList {
	di := deployIntentProject(in)
	if di == nil {
		return nil
	}
	id := di.Pack.Project.ID
	p := diPackPath.Child("project", "id")
	switch {
	case id == "":
		return field.ErrorList{field.Required(p, "pack.project.id names the Arena project to deploy")}
	case len(id) > deployIntentProjectIDMax:
		return field.ErrorList{field.Invalid(p, id,
			"project id is "+strconv.Itoa(len(id))+" characters; at most "+strconv.Itoa(deployIntentProjectIDMax)+" (it is a label value)")}
	case !deployIntentProjectIDPattern.MatchString(id):
		return field.ErrorList{field.Invalid(p, id,
			"project id "+strconv.Quote(id)+" does not match ^[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$ (lower-case letters, digits, '-', '_', '.', starting and ending alphanumeric)")}
	}
	return nil
}

func checkDeployIntentProjectNames(in Input) field.ErrorList {
	di := deployIntentProject(in)
	if di == nil || di.DerivedName == "" {
		return nil
	}
	var errs field.ErrorList
	msg := func(what, got string) string {
		return what + " " + strconv.Quote(got) + " differs from the derived dev name " + strconv.Quote(di.DerivedName) +
			" (dev-<id>-<user>, from the project id and your user); omit it or set it to the derived name"
	}
	if di.Pack.Name != "" && di.Pack.Name != di.DerivedName {
		errs = append(errs, field.Invalid(diPackPath.Child("name"), di.Pack.Name, msg("pack.name", di.Pack.Name)))
	}
	for i, a := range di.Agents {
		if a.Name != "" && a.Name != di.DerivedName {
			errs = append(errs, field.Invalid(diAgentsPath.Index(i).Child("name"), a.Name, msg("agent name", a.Name)))
		}
	}
	return errs
}

func checkDeployIntentProjectShape(in Input) field.ErrorList {
	di := deployIntentProject(in)
	if di == nil {
		return nil
	}
	if len(di.Agents) != 1 {
		if len(di.Agents) == 0 {
			return nil // deployintent/agents-required reports it
		}
		return field.ErrorList{field.Invalid(diAgentsPath, len(di.Agents),
			"with pack.project the intent has exactly one agent (the dev agent), not "+strconv.Itoa(len(di.Agents)))}
	}
	a := di.Agents[0]
	p := diAgentsPath.Index(0)
	var errs field.ErrorList
	if a.IdleTimeout == "" {
		errs = append(errs, field.Required(p.Child("idleTimeout"),
			"a dev agent needs an idleTimeout (e.g. 30m) so the idle reaper removes it"))
	}
	if a.HasRollout {
		errs = append(errs, field.Forbidden(p.Child("rollout"), "a dev agent has no rollout; remove it"))
	}
	const facadeWant = "a dev agent has a single websocket facade with dataPlane: false and managementPlane not false: " +
		`facades: [{"type": "websocket", "dataPlane": false}]`
	switch {
	case len(a.Facades) != 1:
		errs = append(errs, field.Invalid(p.Child("facades"), len(a.Facades), facadeWant))
	default:
		f := a.Facades[0]
		fp := p.Child("facades").Index(0)
		if f.Type != DeployIntentFacadeWebsocket {
			errs = append(errs, field.Invalid(fp.Child("type"), f.Type, facadeWant))
		}
		if f.DataPlane == nil || *f.DataPlane {
			errs = append(errs, field.Invalid(fp.Child("dataPlane"), f.DataPlane, facadeWant))
		}
		if f.ManagementPlane != nil && !*f.ManagementPlane {
			errs = append(errs, field.Invalid(fp.Child("managementPlane"), false, facadeWant))
		}
	}
	return errs
}

func checkDeployIntentProjectPolicyHandlers(in Input) field.ErrorList {
	di := deployIntentProject(in)
	// Without tools, deployintent/policy-needs-tools reports the policy; a
	// tools block with neither ref nor handlers is tools-ref-xor-handlers'.
	if di == nil || di.Policy == nil || di.Tools == nil || di.Tools.Ref == "" {
		return nil
	}
	return field.ErrorList{field.Forbidden(diPolicyPath.Child("toolBlocklist"),
		"with pack.project, policy.toolBlocklist is allowed only with tools.handlers, never with tools.ref: a ToolPolicy selects a registry, so a dev policy on a referenced registry would change the tools of every agent that uses it")}
}
