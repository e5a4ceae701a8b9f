package rules_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/rules/schema"
)

// everythingFacts answers yes to every cluster question, so the reconcile
// rules run past their lookups on fuzzed objects.
type everythingFacts struct{}

func (everythingFacts) Provider(namespace, name string) (*v1alpha1.Provider, bool) {
	return &v1alpha1.Provider{}, true
}

func (everythingFacts) PromptPacks(namespace, packName string) []v1alpha1.PromptPack {
	return []v1alpha1.PromptPack{{}, {}}
}

func (everythingFacts) SecretKeys(namespace, name string) ([]string, bool) {
	return []string{"api-key", "ANTHROPIC_API_KEY", ""}, true
}

func (everythingFacts) SecretValueMatches(_, _, _ string, match func([]byte) (string, bool)) (string, bool) {
	return match([]byte("changeme"))
}

func (everythingFacts) Workspace(namespace string) (*v1alpha1.Workspace, bool) {
	return &v1alpha1.Workspace{}, true
}

func (everythingFacts) License() rules.License {
	return rules.License{Features: map[string]bool{rules.FeatureCustomFacade: true}}
}

func (everythingFacts) CRDInstalled(string) bool { return true }

func (everythingFacts) StatusObserved() bool { return true }

func (everythingFacts) ExposureBaseDomain() string { return "example.com" }

func (everythingFacts) ToolRegistry(string, string) (*v1alpha1.ToolRegistry, bool) {
	return &v1alpha1.ToolRegistry{}, true
}

func (everythingFacts) AgentRuntime(string, string) (*v1alpha1.AgentRuntime, bool) {
	return &v1alpha1.AgentRuntime{Spec: v1alpha1.AgentRuntimeSpec{Facades: []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeA2A}}}}, true
}

func (everythingFacts) PersistentVolumeClaimExists(string, string) bool { return true }

func (everythingFacts) ConfigMapValue(string, string, string) ([]byte, bool, bool) {
	return []byte(`{"id": 1}`), true, true
}

// specExamples reads the spec's complete examples, keyed by file.
func specExamples(tb testing.TB) map[string][]byte {
	tb.Helper()
	files, err := filepath.Glob("../config/samples/*/*.yaml")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no spec examples under ../config/samples (%v)", err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out[f] = data
	}
	return out
}

// FuzzEvaluate decodes arbitrary JSON or YAML into an object, stamps it with
// an Omnia kind chosen by the fuzzer, and runs rules.Full (schema, CEL and
// every Go rule, as omniactl check does, on create or update) and
// Default.Evaluate on the typed object (the admission stage as the webhook
// runs it; every stage with facts that find everything, as a reconciler
// may). None of them may panic or run for seconds; Full may only fail with
// an error on input the schema cannot describe.
func FuzzEvaluate(f *testing.F) {
	sv, err := schema.Default()
	if err != nil {
		f.Fatal(err)
	}
	kinds := schema.Kinds() // sorted: the fuzzer's kind byte indexes them
	for _, data := range specExamples(f) {
		var meta struct{ Kind string }
		if err := yaml.Unmarshal(data, &meta); err != nil {
			f.Fatal(err)
		}
		i := uint8(slices.Index(kinds, meta.Kind))
		f.Add(data, i, false)
		f.Add(data, i, true)
		f.Add(data, i+1, false) // another kind's shape
	}
	for i := range kinds {
		for _, s := range []string{
			`{}`, `null`, `[]`, `spec: {}`, `spec: null`, `metadata: {name: x, namespace: y}`,
			`{"spec":{"facades":[{"type":"custom"},{"type":"a2a","a2a":{"clients":[{"name":"a"}]}}],"a2aClients":[{"name":"b"}]}}`,
			`{"spec":{"handlers":[{"name":"h","type":"mcp","mcpConfig":{"endpoint":"http://169.254.169.254/"},"retryPolicy":{"maxBackoff":"1s","initialBackoff":"5s"}}]}}`,
			`{"spec":{"type":"claude","credential":{"envVar":"1BAD","filePath":"rel/../x"},"defaults":{"temperature":"3","topP":"x"}}}`,
			`{"spec":{"schedule":{"cron":"* * *","timezone":"Mars/Base"},"loadTest":{"budgetLimit":"1","thresholds":[{"metric":"ttft_p95","operator":"<","value":"x"}]}}}`,
		} {
			f.Add([]byte(s), uint8(i), false)
			f.Add([]byte(s), uint8(i), true)
		}
	}

	ctx := context.Background()
	f.Fuzz(func(t *testing.T, data []byte, kindIndex uint8, update bool) {
		defer watchdog(data)()
		// Decoded as the API server and omniactl decode a body: YAML to
		// JSON, integral numbers as int64.
		j, err := yaml.YAMLToJSON(data)
		if err != nil {
			return
		}
		var obj map[string]any
		if err := utiljson.Unmarshal(j, &obj); err != nil || obj == nil {
			return
		}
		kind := kinds[int(kindIndex)%len(kinds)]
		obj["apiVersion"] = v1alpha1.GroupVersion.String()
		obj["kind"] = kind
		var old map[string]any
		if update {
			// The stored object: the same document, so update rules see
			// both sides of every field.
			old = deepCopy(t, obj)
		}
		if _, err := rules.Full(ctx, sv, rules.Default, obj, old, rules.NoFacts{}, rules.Options{}); err != nil {
			// An error is a clean refusal of unusable input; it must say
			// something.
			if err.Error() == "" {
				t.Fatal("Full failed with an empty error")
			}
		}
		typed, err := rules.Typed(obj)
		if err != nil {
			return
		}
		in := rules.Input{Object: typed}
		if update {
			in.Old = typed.DeepCopyObject()
		}
		rules.Default.Evaluate(kind, in, rules.Options{Stages: []rules.Stage{rules.StageAdmission}})
		in.Facts = everythingFacts{}
		rules.Default.Evaluate(kind, in, rules.Options{})
	})
}

func deepCopy(t *testing.T, in map[string]any) map[string]any {
	t.Helper()
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := utiljson.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// fuzzDeadline bounds one input: omniactl check and the reconcilers evaluate
// many objects, and the webhook has 10s; an input that takes seconds is a
// denial of service.
const fuzzDeadline = 5 * time.Second

// watchdog crashes the fuzz worker when one input runs past fuzzDeadline, so
// the fuzzer records the input as a failure instead of stalling. Call the
// returned func when the input is done.
func watchdog(input []byte) func() {
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(fuzzDeadline):
			panic(fmt.Sprintf("one input ran for over %v: %q", fuzzDeadline, input))
		}
	}()
	return func() { close(done) }
}
