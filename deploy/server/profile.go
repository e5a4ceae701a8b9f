package server

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/intent"
)

// HiddenLabel marks an object kept out of every list and picker
// (deploy-intent.md § Hidden resources): the profile leaves it out.
const HiddenLabel = "omnia.altairalabs.ai/hidden"

// hidden reports whether the object carries omnia.altairalabs.ai/hidden: "true".
func hidden(o client.Object) bool { return o.GetLabels()[HiddenLabel] == "true" }

// profile answers GET .../deploy-profile from the cache: the token
// namespace's Providers (name, role — llm when unset —, type, model) and
// SkillSources (name, type), each sorted by name, hidden ones left out.
// Only those fields are copied: no credential reference, header, base URL
// or Secret ever reaches the body.
func (h *Handler) profile(ctx context.Context, caller auth.Caller, workspace string, _ []byte) Response {
	p, err := Profile(ctx, h.opts.Reader, caller.Namespace, workspace, h.opts.APIEndpoint)
	if err != nil {
		h.opts.Log.Error(err, "reading the deploy profile", "namespace", caller.Namespace)
		return Response{Status: http.StatusInternalServerError, Body: errorBody("reading the workspace's Providers and SkillSources failed")}
	}
	return Response{Status: http.StatusOK, Body: p}
}

// Profile builds the deploy profile of the workspace whose namespace is
// namespace.
func Profile(ctx context.Context, r client.Reader, namespace, workspace, apiEndpoint string) (intent.DeployProfile, error) {
	p := intent.DeployProfile{
		APIEndpoint:                   apiEndpoint,
		Workspace:                     workspace,
		Providers:                     []intent.ProfileProvider{},
		Skills:                        []intent.ProfileSkill{},
		SupportedDeployIntentVersions: slices.Clone(intent.SupportedVersions),
	}
	var providers v1alpha1.ProviderList
	if err := r.List(ctx, &providers, client.InNamespace(namespace)); err != nil {
		return p, err
	}
	for i := range providers.Items {
		pr := &providers.Items[i]
		if hidden(pr) {
			continue
		}
		role := string(pr.Spec.Role)
		if role == "" {
			role = string(v1alpha1.ProviderRoleLLM)
		}
		p.Providers = append(p.Providers, intent.ProfileProvider{Name: pr.Name, Role: role, Type: string(pr.Spec.Type), Model: pr.Spec.Model})
	}
	var skills v1alpha1.SkillSourceList
	if err := r.List(ctx, &skills, client.InNamespace(namespace)); err != nil {
		return p, err
	}
	for i := range skills.Items {
		s := &skills.Items[i]
		if hidden(s) {
			continue
		}
		p.Skills = append(p.Skills, intent.ProfileSkill{Name: s.Name, Type: string(s.Spec.Type)})
	}
	slices.SortFunc(p.Providers, func(a, b intent.ProfileProvider) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(p.Skills, func(a, b intent.ProfileSkill) int { return strings.Compare(a.Name, b.Name) })
	// Bounded, as every list the operator serves: the first entries by
	// name. A workspace with more Providers or SkillSources than this is
	// beyond what a discovery document is for.
	p.Providers = p.Providers[:min(len(p.Providers), MaxProfileEntries)]
	p.Skills = p.Skills[:min(len(p.Skills), MaxProfileEntries)]
	return p, nil
}

// MaxProfileEntries bounds the profile's providers and skills, each.
const MaxProfileEntries = 500
