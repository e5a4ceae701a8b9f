package framework

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// PromptPackName is the name of the PromptPack (and its ConfigMap) that
// CreatePromptPack creates for packName at version.
func PromptPackName(packName, version string) string {
	return packName + "-" + version
}

// CreatePromptPack creates, in ns, a ConfigMap-sourced PromptPack for
// packName at version, labelled with its pack name (how an agent's
// promptPackRef finds it), whose pack.json matches it. It does not wait:
// see CreateReadyPromptPack.
func CreatePromptPack(c client.Client, ns, packName, version string) {
	ginkgo.GinkgoHelper()
	ctx := context.Background()
	name := PromptPackName(packName, version)
	gomega.Expect(c.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Data:       map[string]string{"pack.json": fmt.Sprintf(`{"id": %q, "version": %q}`, packName, version)},
	})).To(gomega.Succeed())
	gomega.Expect(c.Create(ctx, &v1alpha1.PromptPack{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{rules.PromptPackLabel: packName}},
		Spec: v1alpha1.PromptPackSpec{PackName: packName, Version: version,
			Source: v1alpha1.PromptPackContentSource{ConfigMapRef: &v1alpha1.LocalObjectReference{Name: name}}},
	})).To(gomega.Succeed())
}

// CreateReadyPromptPack is CreatePromptPack, then waits until the
// operator's PromptPack controller reports the pack Ready: an agent
// referencing it is then judged on the pack, not on a race with its
// validation.
func CreateReadyPromptPack(c client.Client, ns, packName, version string) {
	ginkgo.GinkgoHelper()
	CreatePromptPack(c, ns, packName, version)
	name := PromptPackName(packName, version)
	WaitFor(c, &v1alpha1.PromptPack{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}, func(g gomega.Gomega, p *v1alpha1.PromptPack) {
		g.Expect(p.Status.Phase).To(gomega.Equal(v1alpha1.PromptPackPhaseReady))
	}, "PromptPack %s/%s goes Ready", ns, name)
}
