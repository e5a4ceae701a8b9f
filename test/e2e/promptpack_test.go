package e2e

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

// The operator binary, as its ServiceAccount, validates a PromptPack's
// ConfigMap: the phase follows the ConfigMap with no other component.
var _ = Describe("PromptPack", func() {
	ctx := context.Background()

	It("is Ready with a matching pack.json, Invalid when it stops matching, Ready again when fixed", func() {
		ns := framework.CreateNamespace(suite.Client, "pp-e2e")
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "support-1"},
			Data: map[string]string{"pack.json": `{"id": "support", "version": "1.0.0"}`}}
		Expect(suite.Client.Create(ctx, cm)).To(Succeed())
		pack := &v1alpha1.PromptPack{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "support-1", Labels: map[string]string{"omnia.altairalabs.ai/promptpack": "support"}},
			Spec: v1alpha1.PromptPackSpec{PackName: "support", Version: "1.0.0",
				Source: v1alpha1.PromptPackContentSource{ConfigMapRef: &v1alpha1.LocalObjectReference{Name: "support-1"}}},
		}
		Expect(suite.Client.Create(ctx, pack)).To(Succeed())
		state := func() string {
			p := &v1alpha1.PromptPack{}
			Expect(suite.Client.Get(ctx, client.ObjectKeyFromObject(pack), p)).To(Succeed())
			reason := ""
			if c := meta.FindStatusCondition(p.Status.Conditions, "Ready"); c != nil {
				reason = c.Reason
			}
			return string(p.Status.Phase) + "/" + reason
		}
		Eventually(state, 60*time.Second, 200*time.Millisecond).Should(Equal("Ready/PackValid"))

		cm.Data["pack.json"] = `{"id": "support", "version": "2.0.0"}`
		Expect(suite.Client.Update(ctx, cm)).To(Succeed())
		Eventually(state, 60*time.Second, 200*time.Millisecond).Should(Equal("Invalid/PackIdentityMismatch"))

		cm.Data["pack.json"] = `{"id": "support", "version": "1.0.0"}`
		Expect(suite.Client.Update(ctx, cm)).To(Succeed())
		Eventually(state, 60*time.Second, 200*time.Millisecond).Should(Equal("Ready/PackValid"))
	})
})
