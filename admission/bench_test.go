package admission_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/altairalabs/omnia/rules/schema"
)

// BenchmarkHandler measures the webhook end to end on a real AdmissionReview
// of each spec example (config/samples): HTTP body →
// decode the review and the object → the admission-stage rules → encode the
// response, through admission.HTTPHandler with an httptest recorder. The
// object is the one the API server sends: defaulted and pruned by the CRD
// schema. Target on the 2-core reference machine ≤ 100 µs/op. Run with
//
//	go test -run '^$' -bench . -benchmem -count 6 ./rules/ ./admission/ | tee /tmp/bench.txt
//	go tool benchstat /tmp/bench.txt
func BenchmarkHandler(b *testing.B) {
	sv, err := schema.Default()
	if err != nil {
		b.Fatal(err)
	}
	for _, ex := range examples(b) {
		var m map[string]any
		if err := utiljson.Unmarshal(ex.json, &m); err != nil {
			b.Fatal(err)
		}
		res, err := sv.ValidateCreate(context.Background(), m)
		if err != nil {
			b.Fatal(err)
		}
		object, err := json.Marshal(res.Object)
		if err != nil {
			b.Fatal(err)
		}
		body := reviewBody(b, reviewRequest{kind: ex.kind, namespace: "agents", name: ex.name, object: object})
		b.Run(ex.kind+"/"+ex.name, func(b *testing.B) {
			h := httpHandler(b, ex.kind, newConfig(prometheus.NewRegistry()))
			status, raw := serve(h, body)
			if status != http.StatusOK {
				b.Fatalf("HTTP %d: %s", status, raw)
			}
			if resp, err := decodeResponse(raw); err != nil || !resp.Allowed {
				b.Fatalf("the spec example was not admitted (%v): %s", err, raw)
			}
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "/validate", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				h.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
}
