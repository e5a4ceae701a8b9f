package admission

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MaxReviewBytes bounds an AdmissionReview body: a review must be smaller.
// The API server accepts request bodies up to 3 MiB, and an UPDATE's review
// carries two objects (the new one and the stored one) besides the request
// envelope, so the bound is 7 MiB — the most controller-runtime's webhook
// reads, too. Anything larger is not a request the API server sent.
const MaxReviewBytes = 7 << 20

// limitBody refuses bodies of MaxReviewBytes or more with a clear
// AdmissionReview error (HTTP 200, allowed=false, code 413), as the API server
// expects a review back whatever went wrong.
func limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength >= MaxReviewBytes {
			writeReviewError(w, http.StatusRequestEntityTooLarge, fmt.Errorf("admission review of %d bytes is over the limit: a review must be smaller than %d bytes", r.ContentLength, MaxReviewBytes))
			return
		}
		// An empty body stays http.NoBody, so the webhook reports it as
		// empty. The cap goes on a shallow copy of the request: net/http
		// must keep seeing its own body to close a connection whose body
		// was not read to the end (else the unread rest is parsed as the
		// next request on that connection).
		if r.Body != nil && r.Body != http.NoBody {
			capped := r.WithContext(r.Context())
			capped.Body = &cappedBody{ReadCloser: r.Body, remaining: MaxReviewBytes}
			r = capped
		}
		next.ServeHTTP(w, r)
	})
}

// cappedBody ends a body of unknown length at the limit. controller-runtime's
// webhook stops reading at the same size and answers 413; the cap keeps the
// bound should that ever change.
type cappedBody struct {
	io.ReadCloser
	remaining int64
}

func (c *cappedBody) Read(p []byte) (int, error) {
	if c.remaining <= 0 {
		return 0, fmt.Errorf("admission review exceeds the %d-byte limit", MaxReviewBytes)
	}
	if int64(len(p)) > c.remaining {
		p = p[:c.remaining]
	}
	n, err := c.ReadCloser.Read(p)
	c.remaining -= int64(n)
	return n, err
}

func writeReviewError(w http.ResponseWriter, code int32, err error) {
	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Response: &admissionv1.AdmissionResponse{
			Allowed: false,
			Result:  &metav1.Status{Code: code, Message: err.Error()},
		},
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(review)
}
