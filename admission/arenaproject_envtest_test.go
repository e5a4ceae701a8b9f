package admission_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/altairalabs/omnia/rules"
)

var arenaProjects = schema.GroupVersionResource{Group: omniaGroup, Version: "v1alpha1", Resource: "arenaprojects"}

// testArenaProjectGitURL: the API server, calling the operator's
// ArenaProject webhook, refuses a project whose git URL passes the CRD
// schema but not arenaproject/git-url (a metadata host, user info, plain
// http), naming the rule and the field, and stores nothing; an https URL
// is admitted.
func testArenaProjectGitURL(t *testing.T, dyn dynamic.Interface) {
	ctx := context.Background()
	res := dyn.Resource(arenaProjects).Namespace("agents")
	project := func(name, url string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": omniaGroup + "/v1alpha1", "kind": "ArenaProject",
			"metadata": map[string]any{"name": name, "namespace": "agents"},
			"spec":     map[string]any{"git": map[string]any{"url": url, "secretRef": map[string]any{"name": "evals-git"}}},
		}}
	}
	for name, url := range map[string]string{
		"metadata":  "https://169.254.169.254/latest/meta-data/repo.git",
		"gcp":       "https://metadata.google.internal/repo.git",
		"link6":     "https://[fe80::1]/repo.git",
		"userinfo":  "https://bot:tok@github.com/acme/evals.git",
		"plainhttp": "http://github.com/acme/evals.git",
	} {
		_, err := res.Create(ctx, project(name, url), metav1.CreateOptions{})
		assertRefusedBy(t, err, "varenaproject.omnia.altairalabs.ai", rules.ArenaProjectGitURLRuleID, "spec.git.url")
		if _, err := res.Get(ctx, name, metav1.GetOptions{}); err == nil {
			t.Errorf("the refused project %s (%s) was stored", name, url)
		}
	}
	if _, err := res.Create(ctx, project("evals", "https://github.com/acme/evals.git"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Errorf("an https project refused: %v", err)
	}
}
