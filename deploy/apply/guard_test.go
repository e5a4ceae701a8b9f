package apply

import (
	"context"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/deploy/translate"
)

// A credential Secret or a ToolPolicy under the intent's name that a deploy
// did not make is never overwritten: its result fails naming why, its
// content is unchanged, and the rest of the intent still applies (207).
// With the deploy's mark on it, the same objects are updated as usual.
func TestUpsertNeverOverwritesWhatADeployDidNotMake(t *testing.T) {
	ns := namespace(t)
	ctx := context.Background()
	foreign := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: translate.CredentialsSecretName("my-pack")},
		Data: map[string][]byte{"OTHER": []byte("a platform team's value")}}
	if err := k8s.Create(ctx, foreign); err != nil {
		t.Fatal(err)
	}
	in := toolsIntent()
	// An intent's labels cannot forge the mark.
	in.Labels = map[string]string{translate.LabelManagedBy: "someone-else"}
	status, res, _ := deploy(t, ns, in, Options{})
	if status != http.StatusMultiStatus || res.Succeeded {
		t.Fatalf("status %d, want 207", status)
	}
	var secretResult *intent.ResourceResult
	for i := range res.Results {
		if res.Results[i].Kind == translate.KindSecret {
			secretResult = &res.Results[i]
		}
		if res.Results[i].Kind != translate.KindSecret && res.Results[i].Action == intent.ActionFailed {
			t.Errorf("%s %s failed: %s", res.Results[i].Kind, res.Results[i].Name, res.Results[i].Error)
		}
	}
	if secretResult == nil || secretResult.Action != intent.ActionFailed || !strings.Contains(secretResult.Error, "not made by a deploy") {
		t.Fatalf("the foreign Secret's result: %+v", secretResult)
	}
	got := get(t, ns, foreign.Name, &corev1.Secret{})
	if string(got.Data["OTHER"]) != "a platform team's value" || len(got.Data) != 1 || translate.MadeByDeploy(got) {
		t.Errorf("the foreign Secret was changed: keys %v, labels %v", keys(got.Data), got.Labels)
	}

	// A ToolPolicy under the intent's name, written by someone else.
	ns2 := namespace(t)
	pol := &v1alpha1.ToolPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns2, Name: translate.ToolPolicyName("my-pack")},
		Spec: v1alpha1.ToolPolicySpec{Selector: v1alpha1.ToolPolicySelector{Registry: "platform-tools"}}}
	if err := k8s.Create(ctx, pol); err != nil {
		t.Fatal(err)
	}
	pin := toolsIntent()
	pin.Policy = &intent.Policy{ToolBlocklist: []string{"delete_repo"}}
	if status, _, _ := deploy(t, ns2, pin, Options{}); status != http.StatusMultiStatus {
		t.Errorf("a foreign ToolPolicy: status %d, want 207", status)
	}
	if got := get(t, ns2, pol.Name, &v1alpha1.ToolPolicy{}); got.Spec.Selector.Registry != "platform-tools" {
		t.Errorf("the foreign ToolPolicy was changed: selects %q", got.Spec.Selector.Registry)
	}

	// Marked by a deploy: updated.
	got.Labels = map[string]string{translate.LabelManagedBy: translate.ManagedByDeployAPI}
	if err := k8s.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	if status, res, _ := deploy(t, ns, toolsIntent(), Options{}); status != http.StatusOK || !res.Succeeded {
		t.Errorf("a marked Secret: status %d, want 200", status)
	}
	if got := get(t, ns, foreign.Name, &corev1.Secret{}); string(got.Data["GITHUB_TOKEN"]) != tokenValue {
		t.Errorf("the marked Secret was not updated: keys %v", keys(got.Data))
	}
}
