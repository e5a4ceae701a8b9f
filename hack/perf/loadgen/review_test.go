package loadgen

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// answer renders a webhook's AdmissionReview answer.
func answer(t *testing.T, uid string, allowed bool, message string) []byte {
	t.Helper()
	resp := &admissionv1.AdmissionResponse{UID: types.UID(uid), Allowed: allowed}
	if !allowed {
		resp.Result = &metav1.Status{Code: 403, Message: message}
	}
	body, err := json.Marshal(admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Response: resp})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

func TestCheckVerdict(t *testing.T) {
	const uid = "uid-1"
	admit := Expectation{Allowed: true}
	deny := Expectation{Rule: "provider/base-url"}
	for _, tc := range []struct {
		name string
		exp  Expectation
		body []byte
		want Outcome
	}{
		{"admitted as expected", admit, answer(t, uid, true, ""), OK},
		{"denied by the expected rule", deny, answer(t, uid, false, "[provider/base-url] spec.baseURL: not a URL"), OK},
		{"admitted but should be denied", deny, answer(t, uid, true, ""), WrongVerdict},
		{"denied but should be admitted", admit, answer(t, uid, false, "[provider/base-url] x"), WrongVerdict},
		{"denied by another rule", deny, answer(t, uid, false, "[provider/pricing-decimal] x"), WrongVerdict},
		{"a rule whose name contains the expected one", deny, answer(t, uid, false, "[provider/base-url-plain-http] x"), WrongVerdict},
		{"answers another request", admit, answer(t, "uid-2", true, ""), WrongVerdict},
		{"no response", admit, []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`), WrongVerdict},
		{"not JSON", admit, []byte(`<html>`), WrongVerdict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, why := CheckVerdict(tc.exp, uid, tc.body); got != tc.want {
				t.Fatalf("CheckVerdict = %q (%s), want %q", got, why, tc.want)
			}
		})
	}
}

func TestMixSendsEveryFifthInvalid(t *testing.T) {
	m := Mix[string]{Valid: []string{"a", "b", "c"}, Invalid: []string{"X", "Y"}}
	var got []string
	for i := range 15 {
		got = append(got, *m.Pick(i))
	}
	want := "a b c a X b c a b Y c a b c X"
	if strings.Join(got, " ") != want {
		t.Fatalf("sequence %v, want %s", got, want)
	}
}

func TestLoadCases(t *testing.T) {
	valid, invalid, err := LoadCases(filepath.Join("..", "..", ".."), "perf-test")
	if err != nil {
		t.Fatal(err)
	}
	if len(valid) == 0 || len(invalid) == 0 {
		t.Fatalf("%d valid and %d invalid cases", len(valid), len(invalid))
	}
	kinds := map[string]bool{}
	for _, c := range valid {
		kinds[c.Kind] = true
		if !c.Expect.Allowed {
			t.Errorf("%s: a spec example expected to be refused", c.Name)
		}
	}
	for _, k := range []string{"AgentRuntime", "Provider", "ToolRegistry", "ArenaJob"} {
		if !kinds[k] {
			t.Errorf("no spec example of %s", k)
		}
	}
	for _, c := range append(append([]Case{}, valid...), invalid...) {
		meta, _ := c.Object["metadata"].(map[string]any)
		if meta["namespace"] != "perf-test" {
			t.Errorf("%s: namespace %v", c.Name, meta["namespace"])
		}
	}
	for _, c := range invalid {
		if c.Expect.Allowed || c.Expect.Rule == "" {
			t.Errorf("%s: refused case without a rule", c.Name)
		}
		if strings.Contains(c.Expect.Rule, "license") {
			t.Errorf("%s: a licence gate, admitted under the harness's enterprise licence", c.Name)
		}
	}
	renamed, err := valid[0].WithName("renamed")
	if err != nil {
		t.Fatal(err)
	}
	if renamed["metadata"].(map[string]any)["name"] != "renamed" || valid[0].Object["metadata"].(map[string]any)["name"] == "renamed" {
		t.Fatal("WithName did not rename a copy")
	}
}

func TestReviewBodyIsACreateOfTheObject(t *testing.T) {
	c := &Case{Kind: "Provider", Object: map[string]any{"apiVersion": "omnia.altairalabs.ai/v1alpha1", "kind": "Provider", "metadata": map[string]any{"name": "p", "namespace": "ns"}}}
	body, err := ReviewBody(c, "providers", "uid-7")
	if err != nil {
		t.Fatal(err)
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil {
		t.Fatal(err)
	}
	r := review.Request
	if review.APIVersion != "admission.k8s.io/v1" || r == nil || r.UID != "uid-7" || r.Operation != admissionv1.Create ||
		r.Name != "p" || r.Namespace != "ns" || r.Resource.Resource != "providers" || r.Kind.Kind != "Provider" || !strings.Contains(string(r.Object.Raw), `"name":"p"`) {
		t.Fatalf("review %s", body)
	}
}
