package rules

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	psapi "k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// agentruntime/pod-security: the pod the operator would build for an
// AgentRuntime meets the Pod Security Standards, judged by Kubernetes' own
// library (k8s.io/pod-security-admission/policy), at the level its
// namespace enforces (the pod-security.kubernetes.io/enforce label, at its
// enforce-version) and at the operator's floor (--pod-security-level,
// default baseline): the pod must meet both, so the stricter applies.
//
// podOverrides and runtime.volumes are pod creation in the author's hands:
// without this rule a hostPath of / or an unconfined AppArmor annotation
// reaches a pod the operator creates with its own rights, and in a
// namespace that enforces a level the ReplicaSet is left unable to create
// any pod, with nothing on the agent saying why. The rule is of the
// admission stage (the object and its Namespace's labels are all it
// needs): the webhook, omniactl and the deploy API refuse such an agent,
// and the reconciler, for one that got in anyway, holds its Deployment back
// and reports DeploymentReady False with PodSecurityViolation.

func init() {
	Default.Register(Rule{
		ID:        "agentruntime/pod-security",
		Kinds:     agentRuntimeKinds,
		Stage:     StageAdmission,
		Severity:  SeverityDeny,
		Condition: v1alpha1.AgentRuntimeConditionDeploymentReady,
		Reason:    v1alpha1.AgentRuntimeReasonPodSecurityViolation,
		Doc: "The agent's pod (the operator's hardened containers with the author's runtime.volumes, podOverrides.extraVolumes, " +
			"extraPodAnnotations and podOverrides.annotations) meets the Pod Security Standard of its namespace's " +
			"pod-security.kubernetes.io/enforce label (at its enforce-version) and the operator's floor (--pod-security-level, default " +
			"baseline), judged by Kubernetes' own k8s.io/pod-security-admission/policy checks: no hostPath volume, no unconfined " +
			"AppArmor or seccomp annotation, and at restricted only the restricted volume types. The reconciler holds the Deployment " +
			"back (DeploymentReady False, PodSecurityViolation) instead of leaving a ReplicaSet that cannot create pods.",
		Spec:  "agentruntime.md#podoverrides",
		Check: checkAgentRuntimePodSecurity,
	})
}

// podSecurityEvaluator runs Kubernetes' checks, as the API server's
// PodSecurity admission does.
var podSecurityEvaluator = func() policy.Evaluator {
	e, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		panic("rules: the Pod Security checks do not load: " + err.Error())
	}
	return e
}()

// agentRuntimePodSecurityLevel is one Pod Security level the pod must meet
// and who asks for it, for messages.
type agentRuntimePodSecurityLevel struct {
	lv     psapi.LevelVersion
	source string
}

// agentRuntimePodSecurityLevels are the levels the agent's pod must meet:
// the operator's floor at the latest version, and the namespace's enforce
// label at its enforce-version (read as the API server's PodSecurity
// admission reads it: an invalid level is restricted, an invalid version
// latest). Privileged levels are left out: they check nothing. A Namespace
// the facts do not know (omniactl given no Namespace document, a webhook
// lookup that failed) is judged at the floor alone: the API server's own
// PodSecurity admission still enforces the label on the pods.
func agentRuntimePodSecurityLevels(ar *v1alpha1.AgentRuntime, facts Facts) []agentRuntimePodSecurityLevel {
	var out []agentRuntimePodSecurityLevel
	if floor, err := psapi.ParseLevel(PodSecuritySettingsOf(facts).Level); err == nil && floor != psapi.LevelPrivileged {
		out = append(out, agentRuntimePodSecurityLevel{psapi.LevelVersion{Level: floor, Version: psapi.LatestVersion()}, "the operator's floor (--pod-security-level)"})
	}
	if ns := NamespaceOf(facts, ar.Namespace); ns != nil {
		if _, labelled := ns.Labels[psapi.EnforceLevelLabel]; labelled {
			p, _ := psapi.PolicyToEvaluate(ns.Labels, psapi.Policy{Enforce: psapi.LevelVersion{Level: psapi.LevelPrivileged, Version: psapi.LatestVersion()}})
			if p.Enforce.Level != psapi.LevelPrivileged {
				out = append(out, agentRuntimePodSecurityLevel{p.Enforce, "namespace " + ar.Namespace + "'s " + psapi.EnforceLevelLabel + " label"})
			}
		}
	}
	return out
}

// agentRuntimePodSecurityViolation is one Pod Security check the pod fails.
type agentRuntimePodSecurityViolation struct {
	reason, detail string
	// levels are the level-versions it fails ("baseline:latest"), with who
	// asks for each.
	levels []string
}

func (v agentRuntimePodSecurityViolation) text() string {
	what := v.reason
	if v.detail != "" {
		what += " (" + boundText(v.detail, maxPodSecurityDetail) + ")"
	}
	return what + " under " + strings.Join(v.levels, " and ")
}

// agentRuntimePodSecurityMessage is one field's finding: every check it
// fails, at which level and for whom.
func agentRuntimePodSecurityMessage(violations []agentRuntimePodSecurityViolation) string {
	parts := make([]string, 0, len(violations))
	for _, v := range violations {
		parts = append(parts, v.text())
	}
	return "the agent's pod would break the Pod Security Standards: " + strings.Join(parts, "; ") +
		". Kubernetes refuses such a pod in a namespace that enforces the level, and the operator creates none below its floor: " +
		"remove the field or change it to a value the level allows"
}

// maxPodSecurityDetail bounds each of the library's details in a message:
// they quote the author's volume names and annotation values.
const maxPodSecurityDetail = 256

// agentRuntimePodSecurityViolations evaluates one pod at every level and
// returns the failed checks, one per reason, in the library's order.
// A check failed at two levels is one violation naming both.
func agentRuntimePodSecurityViolations(levels []agentRuntimePodSecurityLevel, meta *metav1.ObjectMeta, spec *corev1.PodSpec) []agentRuntimePodSecurityViolation {
	var out []agentRuntimePodSecurityViolation
	for _, l := range levels {
		for _, r := range podSecurityEvaluator.EvaluatePod(l.lv, meta, spec) {
			if r.Allowed {
				continue
			}
			at := `"` + l.lv.String() + `" (` + l.source + `)`
			i := slices.IndexFunc(out, func(v agentRuntimePodSecurityViolation) bool { return v.reason == r.ForbiddenReason })
			if i < 0 {
				out = append(out, agentRuntimePodSecurityViolation{reason: r.ForbiddenReason, detail: r.ForbiddenDetail, levels: []string{at}})
			} else if !slices.Contains(out[i].levels, at) {
				out[i].levels = append(out[i].levels, at)
			}
		}
	}
	return out
}

// checkAgentRuntimePodSecurity judges the whole pod once; only when it
// fails does it find which of the author's fields does: each volume and
// each annotation is judged alone on the operator's fixed pod, and a
// failure is reported at the field that causes it. A failure no single
// field explains (two fields together, or the operator's pod itself) is
// reported at spec.
func checkAgentRuntimePodSecurity(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil {
		return nil
	}
	levels := agentRuntimePodSecurityLevels(ar, in.Facts)
	if len(levels) == 0 {
		return nil
	}
	meta, spec := AgentRuntimePodSecurityView(ar)
	whole := agentRuntimePodSecurityViolations(levels, meta, spec)
	if len(whole) == 0 {
		return nil
	}
	var errs field.ErrorList
	explained := map[string]bool{}
	fixed := agentRuntimePodSecurityViolations(levels, &metav1.ObjectMeta{}, agentRuntimeFixedPodSpec())
	inFixed := func(v agentRuntimePodSecurityViolation) bool {
		return slices.ContainsFunc(fixed, func(f agentRuntimePodSecurityViolation) bool { return f.reason == v.reason })
	}
	report := func(path *field.Path, violations []agentRuntimePodSecurityViolation) {
		violations = slices.DeleteFunc(violations, inFixed)
		if len(violations) == 0 {
			return
		}
		for _, v := range violations {
			explained[v.reason] = true
		}
		errs = append(errs, field.Forbidden(path, agentRuntimePodSecurityMessage(violations)))
	}
	for _, v := range agentRuntimeUserVolumes(ar) {
		s := agentRuntimeFixedPodSpec()
		s.Volumes = []corev1.Volume{v.volume}
		report(v.path, agentRuntimePodSecurityViolations(levels, &metav1.ObjectMeta{}, s))
	}
	keys := make([]string, 0, len(meta.Annotations))
	for k := range meta.Annotations {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		m := &metav1.ObjectMeta{Annotations: map[string]string{k: meta.Annotations[k]}}
		report(agentRuntimePodAnnotationField(ar, k), agentRuntimePodSecurityViolations(levels, m, agentRuntimeFixedPodSpec()))
	}
	rest := slices.DeleteFunc(whole, func(v agentRuntimePodSecurityViolation) bool { return explained[v.reason] && !inFixed(v) })
	if len(rest) > 0 {
		errs = append(errs, field.Forbidden(field.NewPath("spec"), agentRuntimePodSecurityMessage(rest)))
	}
	return errs
}

// boundText cuts s to at most max bytes on a rune boundary, ending it with
// "..." when cut.
func boundText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
