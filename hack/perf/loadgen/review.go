package loadgen

import (
	"encoding/json"
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// omniaGroup and omniaVersion are the API group and version of every
// webhook-served kind.
const (
	omniaGroup   = "omnia.altairalabs.ai"
	omniaVersion = "v1alpha1"
)

// ReviewBody renders the admission.k8s.io/v1 AdmissionReview the API server
// sends for a CREATE of c's object (resource is the kind's plural), with uid
// as the request UID the answer must echo.
func ReviewBody(c *Case, resource, uid string) ([]byte, error) {
	object, err := json.Marshal(c.Object)
	if err != nil {
		return nil, err
	}
	meta, _ := c.Object["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	namespace, _ := meta["namespace"].(string)
	gvk := metav1.GroupVersionKind{Group: omniaGroup, Version: omniaVersion, Kind: c.Kind}
	gvr := metav1.GroupVersionResource{Group: omniaGroup, Version: omniaVersion, Resource: resource}
	dryRun := false
	return json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:             types.UID(uid),
			Kind:            gvk,
			Resource:        gvr,
			RequestKind:     &gvk,
			RequestResource: &gvr,
			Name:            name,
			Namespace:       namespace,
			Operation:       admissionv1.Create,
			UserInfo:        authenticationv1.UserInfo{Username: "perf-loadgen", Groups: []string{"system:authenticated"}},
			Object:          runtime.RawExtension{Raw: object},
			Options:         runtime.RawExtension{Raw: []byte(`{"apiVersion":"meta.k8s.io/v1","kind":"CreateOptions"}`)},
			DryRun:          &dryRun,
		},
	})
}

// CheckVerdict judges a 200 answer to the review with uid: it must be an
// AdmissionReview answering that uid, allowed or denied as exp says, a
// denial naming exp.Rule. It returns OK or WrongVerdict, and why.
func CheckVerdict(exp Expectation, uid string, body []byte) (Outcome, string) {
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil {
		return WrongVerdict, fmt.Sprintf("not an AdmissionReview: %v", err)
	}
	resp := review.Response
	switch {
	case resp == nil:
		return WrongVerdict, "no response in the AdmissionReview"
	case string(resp.UID) != uid:
		return WrongVerdict, fmt.Sprintf("answers uid %q, not %q", resp.UID, uid)
	case resp.Allowed != exp.Allowed:
		msg := ""
		if resp.Result != nil {
			msg = resp.Result.Message
		}
		return WrongVerdict, fmt.Sprintf("allowed=%t, want %t (%s)", resp.Allowed, exp.Allowed, msg)
	case !resp.Allowed && exp.Rule != "" && (resp.Result == nil || !strings.Contains(resp.Result.Message, "["+exp.Rule+"]")):
		msg := ""
		if resp.Result != nil {
			msg = resp.Result.Message
		}
		return WrongVerdict, fmt.Sprintf("denied, but not by %s: %s", exp.Rule, msg)
	}
	return OK, ""
}
