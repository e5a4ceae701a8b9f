package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/hack/perf/loadgen"
)

// creator times creates of the spec examples through client-go.
type creator struct {
	c        client.Client
	examples []loadgen.Case
}

// runBlock creates b.count spec examples (round-robin, unique names) in a
// fresh namespace with b.concurrency creates in flight, and returns each
// create's duration. A refused create fails the run: every example is
// valid in both modes, so a refusal means the harness is wrong.
func (cr *creator) runBlock(ctx context.Context, b block, namespace string) ([]time.Duration, error) {
	if err := createNamespace(ctx, cr.c, namespace); err != nil {
		return nil, err
	}
	objs := make([]*unstructured.Unstructured, b.count)
	for i := range objs {
		ex := &cr.examples[(b.first+i)%len(cr.examples)]
		obj, err := ex.WithName(fmt.Sprintf("perf-%d", b.first+i))
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{Object: obj}
		u.SetNamespace(namespace)
		objs[i] = u
	}
	durations := make([]time.Duration, b.count)
	errs := make([]error, b.count)
	next := make(chan int)
	var wg sync.WaitGroup
	for range b.concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				start := time.Now()
				errs[i] = cr.c.Create(ctx, objs[i])
				durations[i] = time.Since(start)
			}
		}()
	}
	for i := range objs {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s, %d in flight: creating %s %s: %w", b.mode, b.concurrency, objs[i].GetKind(), objs[i].GetName(), err)
		}
	}
	return durations, nil
}

// cleanUp deletes what a block created (not timed), so the next blocks do
// not run against a store that grew by every earlier block. The envtest API
// server runs no namespace controller, so the objects are deleted kind by
// kind; the empty namespace stays.
func (cr *creator) cleanUp(ctx context.Context, namespace string) error {
	kinds := map[string]bool{}
	for _, ex := range cr.examples {
		kinds[ex.Kind] = true
	}
	for kind := range kinds {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(schema.GroupVersionKind{Group: "omnia.altairalabs.ai", Version: "v1alpha1", Kind: kind})
		if err := cr.c.DeleteAllOf(ctx, u, client.InNamespace(namespace)); err != nil {
			return fmt.Errorf("deleting the %ss of %s: %w", kind, namespace, err)
		}
	}
	return nil
}

// createNamespace creates a namespace.
func createNamespace(ctx context.Context, c client.Client, name string) error {
	return c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
}
