package intent

import (
	"errors"
	"strings"

	"github.com/altairalabs/omnia/rules"
)

// BadRequest is the 400 body for an error of Decode: a *DecodeError gives
// its message and path; any other error its text.
func BadRequest(err error) ErrorResponse {
	var de *DecodeError
	if errors.As(err, &de) {
		return ErrorResponse{Error: de.Error(), Path: de.Path}
	}
	return ErrorResponse{Error: err.Error()}
}

// Invalid is the 400 body for Validate's findings: each with its rule ID,
// field and message, and a summary naming them all.
func Invalid(findings []rules.Finding) ErrorResponse {
	out := ErrorResponse{Findings: make([]ErrorFinding, 0, len(findings))}
	msgs := make([]string, 0, len(findings))
	for _, f := range findings {
		out.Findings = append(out.Findings, ErrorFinding{RuleID: f.RuleID, Field: f.Field, Message: f.Message})
		msgs = append(msgs, f.String())
	}
	out.Error = "the deploy intent is invalid: " + strings.Join(msgs, "; ")
	return out
}
