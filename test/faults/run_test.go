package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// webhookLike refuses the stream's spoiled objects as the webhook would,
// and fails one write in ten once with a connection error, as a fault
// would, so the writers retry.
func webhookLike() interceptor.Funcs {
	var calls atomic.Int64
	judge := func(obj client.Object) error {
		if calls.Add(1)%10 == 0 {
			return fmt.Errorf("dial tcp 127.0.0.1:6443: connect: connection refused")
		}
		if isSpoiled(obj) {
			return fmt.Errorf(`admission webhook "v.omnia.altairalabs.ai" denied the request: spoiled`)
		}
		return nil
	}
	return interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if err := judge(obj); err != nil {
				return err
			}
			return c.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			if err := judge(obj); err != nil {
				return err
			}
			return c.Update(ctx, obj, opts...)
		},
	}
}

// isSpoiled recognises invalidObject's spoiled fields, as the webhook's
// rules would.
func isSpoiled(obj client.Object) bool {
	spoiled := false
	switch o := obj.(type) {
	case *v1alpha1.Provider:
		spoiled = o.Spec.Defaults != nil && o.Spec.Defaults.RequestTimeout == "soon"
	case *v1alpha1.ToolRegistry:
		spoiled = len(o.Spec.Handlers) > 0 && o.Spec.Handlers[0].Timeout == "fast"
	case *v1alpha1.AgentRuntime:
		spoiled = len(o.Spec.Facades) > 0 && slices.ContainsFunc(o.Spec.Facades[0].ExtraEnv, func(e corev1.EnvVar) bool { return e.Name == "OMNIA_PACK_MODE" })
	}
	return spoiled
}

func fakeClient(t *testing.T) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(scheme).WithInterceptorFuncs(webhookLike()).Build()
}

// specs reads every stream object's spec, by kind and name.
func specs(t *testing.T, c client.Client, ns string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, kind := range streamKinds {
		list := newList(kind)
		if err := c.List(context.Background(), list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		objs, err := listItems(list)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			var spec any
			switch x := o.(type) {
			case *v1alpha1.Provider:
				spec = x.Spec
			case *v1alpha1.ToolRegistry:
				spec = x.Spec
			case *v1alpha1.AgentRuntime:
				spec = x.Spec
			}
			raw, err := json.Marshal(spec)
			if err != nil {
				t.Fatal(err)
			}
			out[kind+"/"+o.GetName()] = string(raw)
		}
	}
	return out
}

func TestStoppedParallelRunIsAPrefixTheReplayRepeats(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const groups = 5
	run := &Stream{Client: fakeClient(t), Namespace: "ns", Groups: groups, RetryPause: time.Millisecond}
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- run.Run(ctx, stop, 0, 4) }()
	if err := wait.PollUntilContextCancel(ctx, time.Millisecond, true, func(context.Context) (bool, error) {
		return run.Report().Done >= 80, nil
	}); err != nil {
		t.Fatal(err)
	}
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := run.Report()
	ref := &Stream{Client: fakeClient(t), Namespace: "ns", Groups: groups, RetryPause: time.Millisecond}
	if err := ref.Run(ctx, nil, got.Done, 1); err != nil {
		t.Fatal(err)
	}
	want := ref.Report()
	if want.Done != got.Done || want.Denied != got.Denied || got.Denied == 0 || len(got.Admitted) > 0 || got.Failed == 0 {
		t.Fatalf("parallel run: done %d, denied %d, admitted %v, failed %d; sequential: done %d, denied %d",
			got.Done, got.Denied, got.Admitted, got.Failed, want.Done, want.Denied)
	}
	a, b := specs(t, run.Client, "ns"), specs(t, ref.Client, "ns")
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d objects after the parallel run, %d after the sequential one", len(a), len(b))
	}
	for k, v := range b {
		if a[k] != v {
			t.Errorf("%s: parallel %s, sequential %s", k, a[k], v)
		}
	}
}
