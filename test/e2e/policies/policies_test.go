package policies

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

// regoTimeout is the operator's --policy-rego-timeout in this suite.
const regoTimeout = 200 * time.Millisecond

// The rule every language writes: a Provider's defaults.maxTokens is at
// most 4096. Its finding is at spec.defaults.maxTokens.
const (
	maxTokensField = "spec.defaults.maxTokens"
	celMaxTokens   = "!has(object.spec.defaults) || !has(object.spec.defaults.maxTokens) || object.spec.defaults.maxTokens <= 4096"
	regoMaxTokens  = `package omnia.maxtokens

violation contains {"msg": "defaults.maxTokens is above 4096", "field": "spec.defaults.maxTokens"} if {
	input.object.spec.defaults.maxTokens > 4096
}
`
	// regoLoop never ends on its own: 10^12 iterations.
	regoLoop = `package omnia.loop

violation contains {"msg": "unreachable", "field": "spec"} if {
	some i in numbers.range(1, 1000000000000)
	i < 0
}
`
)

func policyRule(lang, id string) v1alpha1.ValidationPolicyRule {
	r := v1alpha1.ValidationPolicyRule{ID: id}
	switch lang {
	case "cel":
		r.CEL = celMaxTokens
		r.FieldPath = maxTokensField
		r.Message = "defaults.maxTokens is above 4096"
	case "rego":
		r.Rego = regoMaxTokens
	}
	return r
}

func newPolicy(name string, actions []v1alpha1.ValidationAction, ns string, rules ...v1alpha1.ValidationPolicyRule) *v1alpha1.ValidationPolicy {
	return &v1alpha1.ValidationPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.ValidationPolicySpec{
			MatchKinds:        []v1alpha1.PolicyMatchKind{"Provider"},
			ValidationActions: actions,
			// Each spec's policy judges only its own namespace.
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}},
			Rules:             rules,
		},
	}
}

func provider(ns, name string, maxTokens int32) *v1alpha1.Provider {
	return &v1alpha1.Provider{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.ProviderSpec{
			Type:     "claude",
			Model:    "claude-sonnet-4-20250514",
			Platform: &v1alpha1.ProviderPlatform{Type: "bedrock", Region: "us-east-1"},
			Auth:     &v1alpha1.ProviderAuth{Type: v1alpha1.ProviderAuthTypeWorkloadIdentity},
			Defaults: &v1alpha1.ProviderDefaults{MaxTokens: ptr.To(maxTokens)},
		},
	}
}

// inForce waits until the policy controller has compiled the policy's
// current generation and put it in force (status.observedGeneration and
// Ready=True). The store is updated before the status is written, so the
// next admission after this sees the policy.
func inForce(ctx context.Context, name string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		var p v1alpha1.ValidationPolicy
		g.Expect(suite.Client.Get(ctx, client.ObjectKey{Name: name}, &p)).To(Succeed())
		g.Expect(p.Status.ObservedGeneration).To(Equal(p.Generation))
		ready := meta.FindStatusCondition(p.Status.Conditions, "Ready")
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), "%+v", p.Status)
	}).WithTimeout(30 * time.Second).WithPolling(100 * time.Millisecond).Should(Succeed())
}

func setActions(ctx context.Context, name string, actions ...v1alpha1.ValidationAction) {
	GinkgoHelper()
	var p v1alpha1.ValidationPolicy
	Expect(suite.Client.Get(ctx, client.ObjectKey{Name: name}, &p)).To(Succeed())
	p.Spec.ValidationActions = actions
	Expect(suite.Client.Update(ctx, &p)).To(Succeed())
	inForce(ctx, name)
}

// refusal returns the causes of an admission refusal as "field [rule] ...".
func refusal(err error) []string {
	GinkgoHelper()
	Expect(err).To(HaveOccurred())
	status, ok := err.(apierrors.APIStatus)
	Expect(ok).To(BeTrue(), "%v", err)
	Expect(status.Status().Details).NotTo(BeNil(), "%v", err)
	var out []string
	for _, c := range status.Status().Details.Causes {
		out = append(out, c.Field+" "+c.Message)
	}
	return out
}

var _ = Describe("ValidationPolicy", func() {
	for _, lang := range []string{"cel", "rego"} {
		It("denies, warns and audits with a "+lang+" rule, each change seen by the next admission", func(ctx SpecContext) {
			ns := "pol-actions-" + lang
			name := "max-tokens-" + lang
			ruleID := "policy/" + name + "/max-tokens"
			framework.EnsureNamespace(suite.Client, ns)
			Expect(suite.Client.Create(ctx, newPolicy(name, []v1alpha1.ValidationAction{"Deny"}, ns, policyRule(lang, "max-tokens")))).To(Succeed())
			DeferCleanup(func(ctx context.Context) {
				Expect(client.IgnoreNotFound(suite.Client.Delete(ctx, &v1alpha1.ValidationPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}}))).To(Succeed())
			})
			inForce(ctx, name)

			By("Deny: the API server refuses the object, naming the rule and the field")
			causes := refusal(suite.Client.Create(ctx, provider(ns, "big-deny", 8192)))
			Expect(causes).To(ContainElement(HavePrefix(maxTokensField + " [" + ruleID + "]")))
			By("an object the rule accepts is admitted")
			Expect(suite.Client.Create(ctx, provider(ns, "small", 1024))).To(Succeed())

			By("Warn: admitted with a warning naming the rule and the field")
			setActions(ctx, name, "Warn")
			suite.Warnings.Take()
			Expect(suite.Client.Create(ctx, provider(ns, "big-warn", 8192))).To(Succeed())
			Expect(suite.Warnings.Take()).To(ContainElement(ContainSubstring("[" + ruleID + "] " + maxTokensField)))

			By("Audit: admitted silently, recorded in the admission metrics")
			setActions(ctx, name, "Audit")
			suite.Warnings.Take()
			Expect(suite.Client.Create(ctx, provider(ns, "big-audit", 8192))).To(Succeed())
			for _, w := range suite.Warnings.Take() {
				Expect(w).NotTo(ContainSubstring(ruleID))
			}
			audited := counter("omnia_admission_findings_total")
			found := false
			for labels, v := range audited {
				if strings.Contains(labels, `rule="`+ruleID+`"`) && strings.Contains(labels, `outcome="audited"`) && v > 0 {
					found = true
				}
			}
			Expect(found).To(BeTrue(), "no audited finding of %s in %v", ruleID, audited)

			By("back to Deny: an update that adds the violation is refused, one that keeps it is ratcheted")
			setActions(ctx, name, "Deny")
			var small v1alpha1.Provider
			Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "small"}, &small)).To(Succeed())
			small.Spec.Defaults.MaxTokens = ptr.To[int32](9000)
			causes = refusal(suite.Client.Update(ctx, &small))
			Expect(causes).To(ContainElement(HavePrefix(maxTokensField + " [" + ruleID + "]")))
			var big v1alpha1.Provider
			Expect(suite.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "big-audit"}, &big)).To(Succeed())
			big.Labels = map[string]string{"touched": "yes"}
			Expect(suite.Client.Update(ctx, &big)).To(Succeed(), "a metadata-only update is never refused")
		})
	}

	It("refuses a policy that does not compile, naming the rule, the field and the error", func(ctx SpecContext) {
		bad := newPolicy("bad-field", nil, "nowhere", v1alpha1.ValidationPolicyRule{ID: "typo", CEL: "object.spec.maxTokenz > 0"})
		err := suite.Client.Create(ctx, bad)
		Expect(err).To(HaveOccurred())
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring("[policy/bad-field/typo]"))
		Expect(err.Error()).To(ContainSubstring("spec.rules[0].cel"))
		Expect(err.Error()).To(ContainSubstring("maxTokenz"))

		badRego := newPolicy("bad-rego", nil, "nowhere", v1alpha1.ValidationPolicyRule{ID: "dial", Rego: "package omnia.dial\n\nviolation contains {\"msg\": \"x\", \"field\": \"spec\"} if {\n\thttp.send({\"method\": \"GET\", \"url\": \"http://169.254.169.254/\"})\n}\n"})
		err = suite.Client.Create(ctx, badRego)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("[policy/bad-rego/dial]"))
		Expect(err.Error()).To(ContainSubstring("http.send"))
	})

	It("refuses a CEL expression whose estimated cost exceeds the limit", func(ctx SpecContext) {
		expensive := newPolicy("too-costly", nil, "nowhere", v1alpha1.ValidationPolicyRule{ID: "cubic", CEL: costlyCEL})
		err := suite.Client.Create(ctx, expensive)
		Expect(err).To(HaveOccurred())
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring("[policy/too-costly/cubic]"))
		Expect(strings.ToLower(err.Error())).To(ContainSubstring("cost"))
	})

	It("stops a looping Rego rule at the timeout with a clear finding, and keeps serving", func(ctx SpecContext) {
		ns := "pol-loop"
		framework.EnsureNamespace(suite.Client, ns)
		loop := newPolicy("loop", []v1alpha1.ValidationAction{"Deny"}, ns, v1alpha1.ValidationPolicyRule{ID: "forever", Rego: regoLoop})
		Expect(suite.Client.Create(ctx, loop)).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			Expect(client.IgnoreNotFound(suite.Client.Delete(ctx, loop))).To(Succeed())
		})
		inForce(ctx, "loop")

		causes := refusal(suite.Client.Create(ctx, provider(ns, "any", 1024)))
		Expect(causes).To(ContainElement(SatisfyAll(ContainSubstring("[policy/loop/forever]"), ContainSubstring("timed out"))))

		By("the webhook answers the next requests, in and out of the policy's namespace")
		framework.EnsureNamespace(suite.Client, "pol-after-loop")
		Expect(suite.Client.Create(ctx, provider("pol-after-loop", "fine", 1024))).To(Succeed())
		causes = refusal(suite.Client.Create(ctx, provider(ns, "again", 1024)))
		Expect(causes).To(ContainElement(ContainSubstring("timed out")))
	})

	It("reports a policy in force: Ready=True at its generation, no rule errors, the default actions", func(ctx SpecContext) {
		ok := newPolicy("status-shape", nil, "nowhere", policyRule("cel", "max-tokens"))
		Expect(suite.Client.Create(ctx, ok)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(client.IgnoreNotFound(suite.Client.Delete(ctx, ok))).To(Succeed()) })
		inForce(ctx, "status-shape")
		var p v1alpha1.ValidationPolicy
		Expect(suite.Client.Get(ctx, client.ObjectKey{Name: "status-shape"}, &p)).To(Succeed())
		Expect(p.Status.RuleErrors).To(BeEmpty())
		Expect(p.Spec.ValidationActions).To(Equal([]v1alpha1.ValidationAction{"Deny"}), "the default")
	})
})

// costlyCEL nests three comprehensions over an unbounded list: its
// estimated cost is far beyond the API server's per-expression limit.
var costlyCEL = fmt.Sprintf("object.spec.%[1]s.all(a, object.spec.%[1]s.all(b, object.spec.%[1]s.all(c, a == b && b == c)))", "capabilities")
