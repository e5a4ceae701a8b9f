package agentruntime

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/rules"
)

// Idle reaping (agentruntime.md#idle-reaping): an agent with the
// omnia.altairalabs.ai/idle-timeout annotation is deleted once its deadline
// (rules.AgentRuntimeIdleDeadline) passes, and the garbage collector removes
// what it owns. Until then the controller requeues at the deadline.

// ReasonIdleReaped is the Normal event recorded when an idle agent is deleted.
const ReasonIdleReaped = "IdleReaped"

// idleActionDelete is the events.k8s.io action of the IdleReaped event.
const idleActionDelete = "Delete"

// idleVerdict is what the idle step decided for one reconcile.
type idleVerdict struct {
	// stop ends the reconcile: the agent was deleted (or is gone), or the
	// delete found a different object than the one judged.
	stop bool
	// requeueAfter is the time left until the deadline; zero when the
	// agent has none.
	requeueAfter time.Duration
}

// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=agentruntimes,verbs=delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// reapIfIdle deletes the agent when its idle deadline has passed on the
// controller's clock and records IdleReaped; otherwise it returns the time
// left until the deadline. An agent already being deleted is left alone, so
// the event is recorded once.
func (r *Reconciler) reapIfIdle(ctx context.Context, ar *v1alpha1.AgentRuntime) (idleVerdict, error) {
	if ar.DeletionTimestamp != nil {
		return idleVerdict{}, nil
	}
	now := r.opts.Clock.Now()
	deadline, ok := rules.AgentRuntimeIdleDeadline(ar, now)
	if !ok {
		return idleVerdict{}, nil
	}
	if now.Before(deadline) {
		return idleVerdict{requeueAfter: deadline.Sub(now)}, nil
	}
	// The preconditions delete exactly the object that was judged: the UID
	// keeps a re-created agent of the same name, and the resourceVersion an
	// agent whose lastUsedAt moved after the (cached) read. Either mismatch
	// is a Conflict, returned so that the agent is reconciled again (with
	// backoff) and judged as it is now: a status-only change passes no
	// watch predicate, so nothing else would requeue it.
	uid, rv := ar.UID, ar.ResourceVersion
	err := r.client.Delete(ctx, ar,
		client.Preconditions{UID: &uid, ResourceVersion: &rv},
		client.PropagationPolicy(metav1.DeletePropagationBackground))
	switch {
	case apierrors.IsNotFound(err):
		return idleVerdict{stop: true}, nil
	case apierrors.IsConflict(err):
		return idleVerdict{stop: true}, fmt.Errorf("the agent changed since it was judged idle, judging it again: %w", err)
	case err != nil:
		return idleVerdict{}, fmt.Errorf("deleting the idle agent: %w", err)
	}
	if r.recorder != nil {
		timeout, _, _ := rules.AgentRuntimeIdleTimeout(ar)
		r.recorder.Eventf(ar, nil, corev1.EventTypeNormal, ReasonIdleReaped, idleActionDelete,
			"deleted after %s without use (%s); idle deadline %s", timeout, rules.AgentRuntimeIdleTimeoutAnnotation, deadline.UTC().Format(time.RFC3339))
	}
	return idleVerdict{stop: true}, nil
}

// setIdleTimeoutCondition sets IdleTimeoutValid from the
// agentruntime/idle-timeout-annotation findings on an annotated agent and
// removes it from one without the annotation (the condition is present only
// on an annotated agent).
func setIdleTimeoutCondition(conds *[]metav1.Condition, ar *v1alpha1.AgentRuntime, findings []rules.Finding, now metav1.Time) {
	timeout, present, _ := rules.AgentRuntimeIdleTimeout(ar)
	if !present {
		conditions.Remove(conds, v1alpha1.AgentRuntimeConditionIdleTimeoutValid)
		return
	}
	conditions.Set(conds, conditions.FromFindings(v1alpha1.AgentRuntimeConditionIdleTimeoutValid,
		byCondition(findings, v1alpha1.AgentRuntimeConditionIdleTimeoutValid),
		v1alpha1.AgentRuntimeReasonIdleTimeoutValid, fmt.Sprintf("the agent is deleted after %s without use", timeout),
		v1alpha1.AgentRuntimeReasonInvalidIdleTimeout, ar.Generation), now)
}

// idleInputsChanged passes an AgentRuntime update that changes what the
// idle deadline is computed from and that bumps no generation:
// status.lastUsedAt (written by the facade) and the idle-timeout
// annotation. The controller's own status writes leave both alone, so they
// do not requeue the agent.
func idleInputsChanged() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			old, okOld := e.ObjectOld.(*v1alpha1.AgentRuntime)
			cur, okCur := e.ObjectNew.(*v1alpha1.AgentRuntime)
			if !okOld || !okCur {
				return false
			}
			oldV, oldSet := old.Annotations[rules.AgentRuntimeIdleTimeoutAnnotation]
			curV, curSet := cur.Annotations[rules.AgentRuntimeIdleTimeoutAnnotation]
			return oldV != curV || oldSet != curSet || !old.Status.LastUsedAt.Equal(cur.Status.LastUsedAt)
		},
	}
}
