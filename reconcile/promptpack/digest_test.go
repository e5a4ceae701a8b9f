package promptpack

import (
	"context"
	"testing"
	"time"

	"github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// TestContentDigestFollowsThePackJSON: a Ready pack publishes the digest of
// the pack.json it validated; an edit of the content (same id and version)
// publishes a new one; an Invalid pack publishes none.
func TestContentDigestFollowsThePackJSON(t *testing.T) {
	ns := namespace(t)
	cm := newConfigMap(ns, "support-1", validJSON)
	create(t, cm)
	pack := newPack(ns, "support-1", "support-1")
	create(t, pack)
	key := client.ObjectKeyFromObject(pack)

	type published struct {
		phase  v1alpha1.PromptPackPhase
		digest string
	}
	g := gomega.NewWithT(t)
	eventually := func(want published) {
		t.Helper()
		g.Eventually(func(g gomega.Gomega) published {
			p := getPack(g, key)
			return published{p.Status.Phase, p.Status.ContentDigest}
		}, 30*time.Second, 50*time.Millisecond).Should(gomega.Equal(want))
	}

	first := rules.PromptPackContentDigest([]byte(validJSON))
	eventually(published{v1alpha1.PromptPackPhaseReady, first})

	edited := `{"id": "support", "version": "1.0.0", "prompts": {"default": {"system_template": "You help, briefly."}}}`
	cm.Data[rules.PromptPackPackJSONKey] = edited
	if err := direct.Update(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	second := rules.PromptPackContentDigest([]byte(edited))
	if second == first {
		t.Fatal("two different pack.json values share a digest")
	}
	eventually(published{v1alpha1.PromptPackPhaseReady, second})

	cm.Data[rules.PromptPackPackJSONKey] = `{"id": "billing", "version": "1.0.0"}`
	if err := direct.Update(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	eventually(published{v1alpha1.PromptPackPhaseInvalid, ""})
}
