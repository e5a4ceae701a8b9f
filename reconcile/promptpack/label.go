package promptpack

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// ensurePackLabel adds the label rules.PromptPackLabel=spec.packName to a
// pack that has none: agents list packs by that label, and packs are
// commonly written with spec.packName alone (the upstream project's own
// manifests are), which would otherwise leave every agent naming the pack
// PromptPackNotFound. A label a user set is never rewritten, even when it
// disagrees with spec.packName: LabelMatches reports that instead, so the
// operator and a GitOps tool never take turns writing it. The patch
// carries the label alone, so it is one write per pack, ever.
func (r *Reconciler) ensurePackLabel(ctx context.Context, p *v1alpha1.PromptPack) error {
	if p.Spec.PackName == "" {
		return nil // the schema requires it; nothing to label with
	}
	if _, ok := p.Labels[rules.PromptPackLabel]; ok {
		return nil
	}
	base := p.DeepCopy()
	if p.Labels == nil {
		p.Labels = map[string]string{}
	}
	p.Labels[rules.PromptPackLabel] = p.Spec.PackName
	if err := r.client.Patch(ctx, p, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("adding the label %s=%s: %w", rules.PromptPackLabel, p.Spec.PackName, err)
	}
	return nil
}
