package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/hack/perf/loadgen"
)

// registrationTimeout bounds the wait for the API server to notice a
// webhook configuration change (it watches them; normally well under a
// second).
const registrationTimeout = time.Minute

// registrar switches the API server between the two modes, registering or
// deleting the ValidatingWebhookConfigurations the environment installed
// (pointed at the operator), and proves each switch took effect with a
// dry-run create of an object only the webhook refuses.
type registrar struct {
	admin client.Client
	// hooks are the configurations as envtest installed them (URL and CA
	// set).
	hooks []*admissionregistrationv1.ValidatingWebhookConfiguration
	// probe is a refused case: denied with the webhooks, admitted without.
	probe *loadgen.Case
}

// set puts the API server in mode m.
func (r *registrar) set(ctx context.Context, m mode) error {
	for _, h := range r.hooks {
		var err error
		if m == withWebhooks {
			fresh := h.DeepCopy()
			fresh.ObjectMeta = metav1.ObjectMeta{Name: h.Name, Labels: h.Labels, Annotations: h.Annotations}
			err = r.admin.Create(ctx, fresh)
			if apierrors.IsAlreadyExists(err) {
				err = nil
			}
		} else {
			err = r.admin.Delete(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: h.Name}})
			if apierrors.IsNotFound(err) {
				err = nil
			}
		}
		if err != nil {
			return fmt.Errorf("switching to %s: %w", m, err)
		}
	}
	return r.waitEffective(ctx, m)
}

// waitEffective polls a dry-run create of the probe until the API server
// refuses it by its rule (webhooks on) or admits it (off).
func (r *registrar) waitEffective(ctx context.Context, m mode) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, registrationTimeout, true, func(ctx context.Context) (bool, error) {
		obj, err := r.probe.WithName("registration-probe")
		if err != nil {
			return false, err
		}
		last = r.admin.Create(ctx, &unstructured.Unstructured{Object: obj}, client.DryRunAll)
		if m == withWebhooks {
			return last != nil && strings.Contains(last.Error(), "["+r.probe.Expect.Rule+"]"), nil
		}
		return last == nil, nil
	})
	if err != nil {
		return fmt.Errorf("the API server did not switch to %s within %s (last answer to the probe: %v): %w", m, registrationTimeout, last, err)
	}
	return nil
}
