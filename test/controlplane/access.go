package controlplane

import (
	"context"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Can asks the API server, as cs's own identity (a SelfSubjectAccessReview),
// whether it may verb group/resource in namespace ("" for every namespace or
// a cluster-scoped resource): what a test reads to check the operator's
// grants from its real token.
func Can(ctx context.Context, cs kubernetes.Interface, verb, group, resource, namespace string) (bool, error) {
	r, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: verb, Group: group, Resource: resource, Namespace: namespace,
		}},
	}, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	return r.Status.Allowed, nil
}
