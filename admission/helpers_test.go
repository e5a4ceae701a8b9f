package admission_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/admission"
	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/licensing"
	"github.com/altairalabs/omnia/rules"
)

// Shared helpers of the handler unit tests, fuzz test and benchmarks: they
// build AdmissionReview bodies exactly as the API server sends them and post
// them through admission.HTTPHandler.

const omniaGroup = "omnia.altairalabs.ai"

func init() {
	// The webhook logs through controller-runtime; without a logger set,
	// controller-runtime prints a "log.SetLogger(...) was never called"
	// stack trace 30s in, into the middle of benchmark output.
	ctrllog.SetLogger(zap.New(zap.WriteTo(io.Discard)))
}

// resources maps each served kind to its plural resource name.
var resources = map[string]string{
	"AgentRuntime": "agentruntimes",
	"Provider":     "providers",
	"ToolRegistry": "toolregistries",
	"ArenaJob":     "arenajobs",
	"ArenaRun":     "arenaruns",
	"PromptPack":   "promptpacks",
}

func testScheme(tb testing.TB) *runtime.Scheme {
	tb.Helper()
	s := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(s); err != nil {
		tb.Fatal(err)
	}
	return s
}

// newConfig returns a handler configuration as the operator builds it, with
// metrics on a fresh registry, on a licensed cluster (every feature,
// unlimited): the spec's examples use enterprise features, and the licence
// gates have their own tables (rules/license_test.go,
// cmd/omniactl/testdata/webhook-rejects.yaml).
func newConfig(reg *prometheus.Registry) *admission.Config {
	return &admission.Config{
		Catalog: rules.Default,
		Mode:    admission.ModeEnforce,
		Facts:   rules.LicenseFacts{Source: licensedCluster()},
		Metrics: admission.NewMetrics(reg),
	}
}

// licensedCluster is an enterprise licence granting every feature, unlimited.
func licensedCluster() rules.License {
	features := map[string]bool{}
	for _, f := range licensing.AllFeatures {
		features[f] = true
	}
	return rules.License{Tier: licensing.TierEnterprise, Customer: "admission tests", Features: features, Limits: &licensing.Limits{}}
}

// httpHandler wraps kind's handler as the webhook server serves it.
func httpHandler(tb testing.TB, kind string, cfg *admission.Config) http.Handler {
	tb.Helper()
	h, ok := admission.Handlers(testScheme(tb), cfg)[kind]
	if !ok {
		tb.Fatalf("no handler for %s", kind)
	}
	return admission.HTTPHandler(h)
}

// reviewRequest describes one AdmissionReview request.
type reviewRequest struct {
	group, kind string // defaults: omnia.altairalabs.ai, AgentRuntime; group "core" is the core group ""
	op          admissionv1.Operation
	namespace   string
	name        string
	object      []byte // JSON
	old         []byte // JSON, update only
	dryRun      bool
}

// reviewBody renders r as the API server's AdmissionReview v1 JSON.
func reviewBody(tb testing.TB, r reviewRequest) []byte {
	tb.Helper()
	if r.group == "" {
		r.group = omniaGroup
	}
	if r.kind == "" {
		r.kind = "AgentRuntime"
	}
	if r.op == "" {
		r.op = admissionv1.Create
	}
	version, resource := "v1alpha1", resources[r.kind]
	if r.group != omniaGroup {
		version, resource = "v1", strings.ToLower(r.kind)+"s"
	}
	if r.group == "core" {
		r.group = ""
	}
	gvk := metav1.GroupVersionKind{Group: r.group, Version: version, Kind: r.kind}
	gvr := metav1.GroupVersionResource{Group: r.group, Version: version, Resource: resource}
	dry := r.dryRun
	req := &admissionv1.AdmissionRequest{
		UID:             types.UID("705ab4f5-6393-11e8-b7cc-42010a800002"),
		Kind:            gvk,
		Resource:        gvr,
		RequestKind:     &gvk,
		RequestResource: &gvr,
		Name:            r.name,
		Namespace:       r.namespace,
		Operation:       r.op,
		UserInfo:        authenticationv1.UserInfo{Username: "alice", Groups: []string{"system:authenticated"}},
		DryRun:          &dry,
	}
	if r.object != nil {
		req.Object = runtime.RawExtension{Raw: r.object}
	}
	if r.old != nil {
		req.OldObject = runtime.RawExtension{Raw: r.old}
	}
	switch r.op {
	case admissionv1.Create:
		req.Options = runtime.RawExtension{Raw: []byte(`{"apiVersion":"meta.k8s.io/v1","kind":"CreateOptions"}`)}
	case admissionv1.Update:
		req.Options = runtime.RawExtension{Raw: []byte(`{"apiVersion":"meta.k8s.io/v1","kind":"UpdateOptions"}`)}
	case admissionv1.Delete:
		req.Options = runtime.RawExtension{Raw: []byte(`{"apiVersion":"meta.k8s.io/v1","kind":"DeleteOptions"}`)}
	}
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request:  req,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return body
}

// serve posts body through h with an httptest recorder and returns the
// HTTP status and raw response.
func serve(h http.Handler, body []byte) (int, []byte) {
	req := httptest.NewRequest(http.MethodPost, "/validate", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

// decodeResponse parses a webhook's answer and checks it is a well-formed
// AdmissionReview: exactly one JSON document, unknown fields refused, typed
// admission.k8s.io/v1 AdmissionReview (or untyped, as controller-runtime
// answers a body it could not decode), a response present, and a refusal
// carrying a status with a code and message.
func decodeResponse(raw []byte) (*admissionv1.AdmissionResponse, error) {
	return decodeResponseTo(raw, nil)
}

// decodeResponseTo is decodeResponse for an answer to body, which may be
// anything: controller-runtime types its answer as the body declared itself
// (a v1beta1 review gets a v1beta1 answer; a body claiming to be a Pod gets
// a "Pod" back, which the API server, the only real caller, never sends and
// would refuse, failing closed). Such an echo is accepted when body names
// that apiVersion and kind.
func decodeResponseTo(raw, body []byte) (*admissionv1.AdmissionResponse, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var review admissionv1.AdmissionReview
	if err := dec.Decode(&review); err != nil {
		return nil, fmt.Errorf("response is not an AdmissionReview: %v\n%s", err, raw)
	}
	if dec.More() {
		return nil, fmt.Errorf("response holds more than one JSON document:\n%s", raw)
	}
	v1 := metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}
	if body == nil {
		// Our own well-formed v1 request: the answer is a v1 review.
		if review.TypeMeta != v1 && review.TypeMeta != (metav1.TypeMeta{}) {
			return nil, fmt.Errorf("response is a %q %q, not an admission.k8s.io/v1 AdmissionReview", review.APIVersion, review.Kind)
		}
	} else if claimed := claimedTypeMeta(body); sentByAPIServers[claimed] && review.TypeMeta != claimed {
		// controller-runtime answers in the review's own version, which is
		// what the API server requires. A body claiming any other type is
		// not something an API server sends: the type echoed back for it
		// (normalised by the deserializer) is not checked, the answer is.
		return nil, fmt.Errorf("the request is a %q %q review, the response a %q %q", claimed.APIVersion, claimed.Kind, review.APIVersion, review.Kind)
	}
	resp := review.Response
	if resp == nil {
		return nil, fmt.Errorf("AdmissionReview without a response:\n%s", raw)
	}
	if !resp.Allowed && (resp.Result == nil || resp.Result.Code < 400 || resp.Result.Message == "") {
		return nil, fmt.Errorf("a refusal without a status code >= 400 and a message:\n%s", raw)
	}
	return resp, nil
}

// sentByAPIServers are the review types an API server sends a webhook.
var sentByAPIServers = map[metav1.TypeMeta]bool{
	{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}:      true,
	{APIVersion: "admission.k8s.io/v1beta1", Kind: "AdmissionReview"}: true,
}

// claimedTypeMeta is the apiVersion and kind of a request body that decodes
// as an AdmissionReview, read as the webhook's deserializer reads it: a body
// starting with '{' as JSON, any other as YAML converted to JSON, keys
// matched as encoding/json does (case-insensitively). A body that does not
// decode claims nothing: the webhook answers it with an untyped error, and
// an API server never sends one.
func claimedTypeMeta(body []byte) metav1.TypeMeta {
	data := body
	if trimmed := bytes.TrimSpace(body); len(trimmed) == 0 || trimmed[0] != '{' {
		j, err := yaml.YAMLToJSON(body)
		if err != nil {
			return metav1.TypeMeta{}
		}
		data = j
	}
	var review admissionv1.AdmissionReview
	if json.Unmarshal(data, &review) != nil {
		return metav1.TypeMeta{}
	}
	return review.TypeMeta
}

// manifest converts a YAML manifest to the JSON the API server sends.
func manifest(tb testing.TB, y string) []byte {
	tb.Helper()
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		tb.Fatal(err)
	}
	return j
}

// example is one of the spec's complete examples.
type example struct {
	kind, name string
	json       []byte
}

// examples loads config/samples/<kind>/*.yaml.
func examples(tb testing.TB) []example {
	tb.Helper()
	files, err := filepath.Glob("../config/samples/*/*.yaml")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no spec examples under ../config/samples (%v)", err)
	}
	var out []example
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		j := manifest(tb, string(data))
		var meta metav1.TypeMeta
		if err := json.Unmarshal(j, &meta); err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		out = append(out, example{kind: meta.Kind, name: strings.TrimSuffix(filepath.Base(f), ".yaml"), json: j})
	}
	return out
}
