package admission_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/admission"
	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// packFacts is a pure stand-in for the cache-backed facts (clusterfacts, a
// unit test of the handler alone; the envtest drives the real cache): it
// knows PromptPacks by label and can fail every lookup.
type packFacts struct {
	rules.NoFacts
	packs   map[string][]v1alpha1.PromptPack // namespace/label value
	err     error
	lookups int
}

func (f *packFacts) PromptPacks(namespace, packName string) []v1alpha1.PromptPack {
	f.lookups++
	if f.err != nil {
		return nil
	}
	return f.packs[namespace+"/"+packName]
}

func (f *packFacts) Provider(string, string) (*v1alpha1.Provider, bool) {
	f.lookups++
	return nil, false
}

func (f *packFacts) Err() error { return f.err }

func livePack(ns, name string) v1alpha1.PromptPack {
	return v1alpha1.PromptPack{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-live", Labels: map[string]string{rules.PromptPackLabel: name}},
		Spec: v1alpha1.PromptPackSpec{PackName: name,
			Source: v1alpha1.PromptPackContentSource{Live: &v1alpha1.PromptPackLiveSource{ProjectRef: v1alpha1.LocalObjectReference{Name: "proj"}}}},
	}
}

// TestHandlerAdmissionFacts: the webhook runs the rules marked
// AdmissionFacts with the facts Config.ClusterFacts gives (a promptPackRef
// version on a live PromptPack is refused), runs no other reconcile-stage
// rule (a missing Provider is no finding here), and refuses, with 503 and a
// message saying to retry, while the facts cannot be looked up.
func TestHandlerAdmissionFacts(t *testing.T) {
	const versionExtra = "" // the pinned version is set on the base ref below
	pinned := strings.Replace(string(agent(t, "", versionExtra)), `"name":"support"}`, `"name":"support","version":"1.0.0"}`, 1)
	if !strings.Contains(pinned, `"version":"1.0.0"`) {
		t.Fatalf("could not pin the version in %s", pinned)
	}
	live := map[string][]v1alpha1.PromptPack{"agents/support": {livePack("agents", "support")}}
	unavailable := errors.New("cache not started")
	cases := []struct {
		name        string
		object      []byte
		old         []byte     // an update when set
		facts       *packFacts // nil: no ClusterFacts configured
		mode        admission.Mode
		wantAllowed bool
		wantCode    int32
		wantText    string // in the refusal's message or the warning
	}{
		{name: "without cluster facts the rule does not run", object: []byte(pinned), wantAllowed: true},
		{name: "a bare ref on a live pack", object: agent(t, "", ""), facts: &packFacts{packs: live}, wantAllowed: true},
		{name: "a pinned version on a published pack name", object: []byte(pinned), facts: &packFacts{}, wantAllowed: true},
		{name: "a pinned version on a live pack is refused", object: []byte(pinned), facts: &packFacts{packs: live},
			wantCode: http.StatusUnprocessableEntity, wantText: "[agentruntime/promptpack-live-ref] spec.promptPackRef.version"},
		{name: "facts unavailable: refused, retry", object: agent(t, "", ""), facts: &packFacts{err: errors.New("cache not started")},
			wantCode: http.StatusServiceUnavailable, wantText: "retry shortly"},
		{name: "facts unavailable, an update leaving the spec alone: admitted", object: withGeneration(t, agent(t, "", ""), 3, false),
			old: withGeneration(t, agent(t, "", ""), 3, false), facts: &packFacts{err: unavailable}, wantAllowed: true},
		{name: "facts unavailable, an update of an object being deleted: admitted", object: withGeneration(t, agent(t, "", ""), 4, true),
			old: withGeneration(t, agent(t, "", ""), 3, true), facts: &packFacts{err: unavailable}, wantAllowed: true},
		{name: "facts unavailable, an update of the spec: refused, retry", object: withGeneration(t, []byte(pinned), 4, false),
			old: withGeneration(t, agent(t, "", ""), 3, false), facts: &packFacts{err: unavailable},
			wantCode: http.StatusServiceUnavailable, wantText: "retry shortly"},
		{name: "facts unavailable in warn mode: admitted with a warning", object: agent(t, "", ""), mode: admission.ModeWarn,
			facts: &packFacts{err: errors.New("cache not started")}, wantAllowed: true, wantText: "agentruntime/promptpack-live-ref, agentruntime/runtime-class-allowed not checked"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := newConfig(prometheus.NewRegistry())
			if tc.mode != "" {
				cfg.Mode = tc.mode
			}
			if tc.facts != nil {
				cfg.ClusterFacts = func(context.Context) admission.CheckedFacts { return tc.facts }
			}
			req := reviewRequest{namespace: "agents", name: "a", object: tc.object}
			if tc.old != nil {
				req.op, req.old = admissionv1.Update, tc.old
			}
			_, raw := serve(httpHandler(t, "AgentRuntime", cfg), reviewBody(t, req))
			resp, err := decodeResponse(raw)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Allowed != tc.wantAllowed {
				t.Fatalf("allowed = %v, want %v: %+v", resp.Allowed, tc.wantAllowed, resp.Result)
			}
			if !tc.wantAllowed && (resp.Result == nil || resp.Result.Code != tc.wantCode || !strings.Contains(resp.Result.Message, tc.wantText)) {
				t.Errorf("refusal %+v, want code %d with %q", resp.Result, tc.wantCode, tc.wantText)
			}
			if tc.wantAllowed && tc.wantText != "" && (len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], tc.wantText)) {
				t.Errorf("warnings %q, want one with %q", resp.Warnings, tc.wantText)
			}
			if tc.wantAllowed && tc.wantText == "" && len(resp.Warnings) > 0 {
				t.Errorf("unexpected warnings %q", resp.Warnings)
			}
		})
	}
}

// TestHandlerAdmissionFactsOnlyForKindsThatNeedThem: a Provider has no rule
// marked AdmissionFacts, so its requests never look anything up and never
// fail closed.
func TestHandlerAdmissionFactsOnlyForKindsThatNeedThem(t *testing.T) {
	facts := &packFacts{err: errors.New("cache not started")}
	cfg := newConfig(prometheus.NewRegistry())
	cfg.ClusterFacts = func(context.Context) admission.CheckedFacts { return facts }
	provider := manifest(t, `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: Provider
metadata: {name: claude, namespace: agents}
spec: {type: claude, model: claude-sonnet-4-20250514}
`)
	_, raw := serve(httpHandler(t, "Provider", cfg), reviewBody(t, reviewRequest{kind: "Provider", namespace: "agents", name: "claude", object: provider}))
	resp, err := decodeResponse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Allowed || facts.lookups != 0 {
		t.Errorf("allowed %v after %d lookups, want allowed with none: %+v", resp.Allowed, facts.lookups, resp.Result)
	}
}

// withGeneration sets the generation (the API server bumps it before
// admission only when the spec changes) and, when deleting, a
// deletionTimestamp and a finalizer.
func withGeneration(t *testing.T, obj []byte, generation int64, deleting bool) []byte {
	t.Helper()
	return withMeta(t, obj, func(meta map[string]any) {
		meta["generation"] = generation
		if deleting {
			meta["deletionTimestamp"] = metav1.Now().UTC().Format(time.RFC3339)
			meta["finalizers"] = []any{"omnia.altairalabs.ai/cleanup"}
		}
	})
}
