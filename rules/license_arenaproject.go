package rules

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Licence gate of ArenaProject's source. The licence's feature list names
// gitSource, ociSource and s3Source; the ArenaProject
// API has two forms, hosted (the workspace content volume, no spec.git) and
// external (spec.git), so gitSource gates the external form and the other
// two have no form to gate yet.
//
// Stage: the spec names no admission refusal for a project's source (it has
// no ArenaProject page, and arenajob.md makes the whole of Arena an
// enterprise feature whose runs "fail … a licence violation"), and the
// licence is a fact the webhook does not judge ArenaProjects by (it serves
// them for the admission-stage arenaproject/git-url). So this is a
// reconcile-stage rule: the
// ArenaProject controller fails the project with reason LicenseViolation
// and fetches nothing, a run of a job on it stays Pending (its project is
// not Ready), and omniactl check reports it. A licence that grants the
// feature later makes the project Ready at its next reconcile.

// kindArenaProject is the ArenaProject kind.
const kindArenaProject = "ArenaProject"

// ArenaProjectGitSourceLicenseRuleID is the gitSource gate.
const ArenaProjectGitSourceLicenseRuleID = "arenaproject/license-git-source"

func init() {
	Default.Register(Rule{
		ID:        ArenaProjectGitSourceLicenseRuleID,
		Kinds:     []string{kindArenaProject},
		Stage:     StageReconcile,
		Severity:  SeverityDeny,
		Condition: v1alpha1.ArenaProjectConditionReady,
		Reason:    v1alpha1.ArenaProjectReasonLicenseViolation,
		Doc: "An external project (spec.git set) needs a licence granting gitSource; a hosted project (no spec.git) needs none. " +
			"The project is Failed with reason LicenseViolation and its repository is not fetched; the rule is not run at admission, " +
			"so the spec is admitted and the controller refuses it.",
		Spec:  "arenajob.md#sourceref",
		Check: checkArenaProjectGitSourceLicense,
	})
}

func checkArenaProjectGitSourceLicense(in Input) field.ErrorList {
	p, ok := in.Object.(*v1alpha1.ArenaProject)
	if !ok || p == nil || p.Spec.Git == nil || in.Facts.License().Has(FeatureGitSource) {
		return nil
	}
	return field.ErrorList{field.Forbidden(field.NewPath("spec", "git"),
		"an external git project needs an enterprise licence granting the "+FeatureGitSource+
			" feature; install such a licence (Secret arena-license) or host the repository on the workspace content volume (remove spec.git)")}
}
