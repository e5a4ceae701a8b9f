package source_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source"
)

// TestStatusMessageIsCoarse: a failed fetch's condition
// message keeps the operator's words and the error's class, never the
// server's body or the network's text (addresses, resolver replies); the
// whole error is still there for the log.
func TestStatusMessageIsCoarse(t *testing.T) {
	const body = "internal-hostname db-7.corp.example: stack trace"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, body, http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	cfg := source.Config{AllowHTTP: true}
	cases := []struct {
		name, url, says, never string
	}{
		{"a server answering with its own text", srv.URL + "/repo.git", "the server's answer could not be read", "db-7.corp.example"},
		{"nothing listening", "http://127.0.0.1:1/repo.git", "the connection could not be made", "dial tcp"},
		{"the egress guard", "http://169.254.169.254/repo.git", "egress guard", "169.254.169.254:80"},
		{"a name that does not resolve", "http://no-such-host.invalid/repo.git", "does not resolve", "lookup"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := source.Fetch(context.Background(), tc.url, nil, cfg)
			if source.ReasonOf(err) != v1alpha1.ArenaProjectReasonFetchFailed {
				t.Fatalf("Fetch = %v, want FetchFailed", err)
			}
			msg := source.StatusMessage(err)
			if !strings.Contains(msg, tc.says) || strings.Contains(msg, tc.never) {
				t.Errorf("status message %q: want %q, never %q (the error: %v)", msg, tc.says, tc.never, err)
			}
		})
	}
	// Any other reason is the operator's own text, kept whole.
	_, err := source.Fetch(context.Background(), "file:///etc", nil, cfg)
	if msg := source.StatusMessage(err); msg != err.Error() || source.ReasonOf(err) != v1alpha1.ArenaProjectReasonInsecureURL {
		t.Errorf("InsecureURL status message %q, want %q", msg, err.Error())
	}
}
