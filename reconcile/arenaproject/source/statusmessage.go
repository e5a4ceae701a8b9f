package source

import (
	"errors"

	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/netguard"
)

// StatusMessage is err as a condition or event says it. A FetchFailed
// error keeps the operator's own words (what was read, which bound) and
// replaces the underlying error with its class: a dial error, a TLS
// failure or an HTTP body is the remote server's text, or the network's
// layout (addresses, resolvers), which a tenant who wrote the URL should
// not be able to read back through the status (so the status carries
// coarse reasons). The log line keeps the whole error.
func StatusMessage(err error) string {
	var e *Error
	if err == nil || !errors.As(err, &e) || e.Reason != v1alpha1.ArenaProjectReasonFetchFailed || e.Err == nil {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	return e.Message + ": " + errorClass(e.Err)
}

// errorClass names what kind of failure err is, in the operator's words:
// the source's own bound errors whole, a network error by its class.
func errorClass(err error) string {
	var (
		pb    *packBoundError
		inner *Error
	)
	switch {
	case errors.As(err, &inner):
		return StatusMessage(inner)
	case errors.As(err, &pb):
		return pb.Error() // the operator's bound and the declared size
	case errors.Is(err, ErrFetchTooLarge), errors.Is(err, ErrLinkInPath), errors.Is(err, ErrFileTooLarge):
		return err.Error()
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed):
		return "authentication failed"
	}
	if d := netguard.Describe(err); d != "the request failed" {
		return d
	}
	return "the server's answer could not be read"
}
