package faults

import (
	"context"
	"errors"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// ErrorClass says why an attempt failed.
type ErrorClass string

// The classes, from what the writer was told. A class says nothing of
// whether the write landed: an error can come after the API server stored
// the object (see StreamReport.Landed and the stored-state check).
const (
	// ClassRefused: no API server to talk to (connection refused): the
	// request was never sent, so it cannot have landed; the writer's honest
	// answer while kube-apiserver is down.
	ClassRefused ErrorClass = "refused"
	// ClassCutOff: the connection closed with the request in flight
	// (reset, EOF, client-go closing the HTTP/2 connection of a server
	// that died): the answer is lost, the write may have landed (etcd may
	// have committed it before kube-apiserver was killed).
	ClassCutOff ErrorClass = "cut-off"
	// ClassTimeout: the request or the API server's storage timed out (no
	// answer in time, 504, etcd's request timed out): the write may have
	// landed.
	ClassTimeout ErrorClass = "timeout"
	// ClassNotReady: an API server that answers but cannot serve yet (503,
	// 500, 429, etcd unavailable, "not yet ready to handle request", or a
	// 404 for the custom resource's route before a restarted API server
	// serves the CRDs again).
	ClassNotReady ErrorClass = "not-ready"
	// ClassWebhookUnavailable: the API server could not call the webhook
	// (failurePolicy Fail refuses the write).
	ClassWebhookUnavailable ErrorClass = "webhook-unavailable"
	// ClassWebhookDenied: the webhook refused a write the stream meant to
	// be valid (an invalid write refused is its outcome, not a failure).
	ClassWebhookDenied ErrorClass = "webhook-denied"
	// ClassConflict: an update raced another writer; retried with a fresh
	// read.
	ClassConflict ErrorClass = "conflict"
	// ClassOther is anything else (it fails a run: see Stream.Unexpected).
	ClassOther ErrorClass = "other"
)

// ErrorClasses are the classes in the order a report lists them.
var ErrorClasses = []ErrorClass{ClassRefused, ClassCutOff, ClassTimeout, ClassNotReady, ClassWebhookUnavailable, ClassWebhookDenied, ClassConflict, ClassOther}

// isWebhookDenial reports a refusal by the operator's webhook (not by the
// CRD schema, not a failure to call it).
func isWebhookDenial(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "admission webhook") && strings.Contains(msg, "denied the request")
}

// httpCode is the HTTP status of an API server's answer (0: none).
func httpCode(err error) int32 {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return status.Status().Code
	}
	return 0
}

// notServed: the API server answered 404 for the resource itself (not for
// an object), as a restarted kube-apiserver does for a custom resource
// until it has read the CRDs again.
func notServed(err error) bool {
	return apierrors.IsNotFound(err) && strings.Contains(err.Error(), "the server could not find the requested resource")
}

// classify sorts a failed attempt's error.
func classify(err error) ErrorClass {
	msg := err.Error()
	switch {
	case isWebhookDenial(err):
		return ClassWebhookDenied
	case strings.Contains(msg, "failed calling webhook"):
		return ClassWebhookUnavailable
	case apierrors.IsConflict(err):
		return ClassConflict
	case apierrors.IsTimeout(err), apierrors.IsServerTimeout(err), errors.Is(err, context.DeadlineExceeded),
		strings.Contains(msg, "Client.Timeout"), strings.Contains(msg, "i/o timeout"),
		strings.Contains(msg, "context deadline exceeded"), strings.Contains(msg, "request timed out"):
		return ClassTimeout
	case strings.Contains(msg, "connection refused"):
		return ClassRefused
	case strings.Contains(msg, "connection reset"), strings.Contains(msg, "EOF"),
		strings.Contains(msg, "http2: client connection lost"), strings.Contains(msg, "http2: client connection force closed"),
		strings.Contains(msg, "broken pipe"):
		return ClassCutOff
	case apierrors.IsServiceUnavailable(err), apierrors.IsInternalError(err), apierrors.IsTooManyRequests(err),
		strings.Contains(msg, "etcdserver"), strings.Contains(msg, "the server is currently unable"),
		// A restarted API server refuses writes its admission webhooks
		// would judge until it has read their configuration.
		strings.Contains(msg, "not yet ready to handle request"),
		notServed(err), strings.Contains(msg, "no matches for kind"):
		return ClassNotReady
	}
	return ClassOther
}
