package admission_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	admissionv1 "k8s.io/api/admission/v1"

	"github.com/altairalabs/omnia/admission"
)

// FuzzHandler sends arbitrary bytes as an AdmissionReview body to one of the
// served kinds' handlers: the handler never panics and always answers with
// a well-formed AdmissionReview (HTTP 200, one JSON document, a response; a
// refusal carries a status code and message). `make fuzz` runs it for
// FUZZTIME; `go test` runs the seed corpus.
func FuzzHandler(f *testing.F) {
	kinds := make([]string, 0, len(admission.Served))
	for k := range admission.Served {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	cfg := newConfig(prometheus.NewRegistry())
	cfg.Mode = admission.ModeEnforce
	handlers := make([]http.Handler, len(kinds))
	for i, k := range kinds {
		handlers[i] = httpHandler(f, k, cfg)
	}
	kindIndex := func(kind string) uint8 { return uint8(slices.Index(kinds, kind)) }

	// Seeds: every spec example as a create, an update onto itself and a
	// review sent to the wrong kind; the handler-test objects; broken bodies.
	for _, ex := range examples(f) {
		i := kindIndex(ex.kind)
		f.Add(reviewBody(f, reviewRequest{kind: ex.kind, namespace: "agents", name: ex.name, object: ex.json}), i)
		f.Add(reviewBody(f, reviewRequest{kind: ex.kind, op: admissionv1.Update, namespace: "agents", name: ex.name, object: ex.json, old: ex.json, dryRun: true}), i)
		f.Add(reviewBody(f, reviewRequest{kind: ex.kind, namespace: "agents", name: ex.name, object: ex.json}), i+1)
	}
	ar := kindIndex("AgentRuntime")
	for _, obj := range [][]byte{
		agent(f, threeDenialsFacades, threeDenialsExtra),
		agent(f, deprecatedA2AFacades, bothA2AExtra),
		agent(f, "  - type: custom\n    image: registry.example/facade:1\n", "  mode: function\n  inputSchema: {type: 7}\n"),
	} {
		f.Add(reviewBody(f, reviewRequest{namespace: "agents", name: "a", object: obj}), ar)
		f.Add(reviewBody(f, reviewRequest{op: admissionv1.Update, namespace: "agents", name: "a", object: obj, old: obj}), ar)
	}
	for _, b := range []string{
		``, `null`, `{}`, `[]`, `"x"`, `{"request":null}`, `{"request":{}}`,
		`{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"1","kind":{"group":"omnia.altairalabs.ai","version":"v1alpha1","kind":"AgentRuntime"},"operation":"CREATE","object":{"spec":{"facades":[{}]}}}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","kind":{"group":"omnia.altairalabs.ai","version":"v1alpha1","kind":"AgentRuntime"},"operation":"UPDATE","object":{"spec":null},"oldObject":{"spec":{"runtime":null}}}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","kind":{"group":"omnia.altairalabs.ai","version":"v1alpha1","kind":"Provider"},"operation":"CREATE","object":"not an object"}}`,
		`apiVersion: admission.k8s.io/v1
kind: AdmissionReview
request: {uid: "1", operation: CREATE}`,
		"\xff\xfe\x00{",
	} {
		for i := range kinds {
			f.Add([]byte(b), uint8(i))
		}
	}

	f.Fuzz(func(t *testing.T, body []byte, kind uint8) {
		defer watchdog(body)()
		h := handlers[int(kind)%len(handlers)]
		status, raw := serve(h, body)
		if status != http.StatusOK {
			t.Fatalf("HTTP status %d, want 200 with an AdmissionReview:\n%s", status, raw)
		}
		if _, err := decodeResponseTo(raw, body); err != nil {
			t.Fatal(err)
		}
	})
}

// fuzzDeadline bounds one input: the API server gives the webhook 10s
// (timeoutSeconds) and fails closed, so an input that takes seconds is a
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
