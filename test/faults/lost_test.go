package faults

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func TestSpecHoldsAllowsDefaultsNotChanges(t *testing.T) {
	want := validObject("ns", KindProvider, 0, 2)
	defaulted := validObject("ns", KindProvider, 0, 2).(*v1alpha1.Provider)
	defaulted.Spec.Defaults.TruncationStrategy = "sliding"
	tools := validObject("ns", KindToolRegistry, 0, 1)
	toolsDefaulted := validObject("ns", KindToolRegistry, 0, 1).(*v1alpha1.ToolRegistry)
	toolsDefaulted.Spec.Handlers[0].Timeout = "30s"
	cases := []struct {
		name   string
		stored client.Object
		want   bool
	}{
		{"same spec", validObject("ns", KindProvider, 0, 2), true},
		{"another version", validObject("ns", KindProvider, 0, 1), false},
		{"spoiled", invalidObject("ns", KindProvider, 0, "provider-0"), false},
	}
	if ok, err := SpecHolds(defaulted, want); err != nil || !ok {
		t.Errorf("a field want leaves unset, defaulted by the server: SpecHolds = %v, %v", ok, err)
	}
	if ok, err := SpecHolds(toolsDefaulted, tools); err != nil || !ok {
		t.Errorf("a field of a list item, defaulted by the server: SpecHolds = %v, %v", ok, err)
	}
	if ok, err := SpecHolds(validObject("ns", KindToolRegistry, 0, 2), tools); err != nil || ok {
		t.Errorf("a list item changed: SpecHolds = %v, %v", ok, err)
	}
	for _, c := range cases {
		if got, err := SpecHolds(c.stored, want); err != nil || got != c.want {
			t.Errorf("%s: SpecHolds = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

// runStream runs the stream's first n operations against c.
func runStream(t *testing.T, c client.Client, ns string, n int) StreamReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s := &Stream{Client: c, Namespace: ns, Groups: 3, RetryPause: time.Millisecond}
	if err := s.Run(ctx, nil, n, 3); err != nil {
		t.Fatal(err)
	}
	return s.Report()
}

func TestCheckStoredFindsEveryKindOfLostWrite(t *testing.T) {
	const ns, n = "lost", 120
	ctx := context.Background()
	cases := []struct {
		name  string
		spoil func(c client.Client) error
		want  func(l Lost) bool
	}{
		{"nothing lost", func(client.Client) error { return nil },
			func(l Lost) bool { return l.Count == 0 }},
		{"an acknowledged object deleted", func(c client.Client) error {
			return c.Delete(ctx, validObject(ns, KindToolRegistry, 1, 0))
		}, func(l Lost) bool { return l.Count == 1 && len(l.Missing) == 1 }},
		{"an acknowledged update undone", func(c client.Client) error {
			last, _ := Acknowledged(3, n)
			op := last[KindAgentRuntime+"/"+objectName(KindAgentRuntime, 0)]
			stored := newObject(KindAgentRuntime)
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: op.Name}, stored); err != nil {
				return err
			}
			if err := copySpec(stored, validObject(ns, KindAgentRuntime, 0, op.Version-1)); err != nil {
				return err
			}
			return c.Update(ctx, stored)
		}, func(l Lost) bool { return l.Count == 1 && len(l.Changed) == 1 }},
		{"a refused create stored", func(c client.Client) error {
			_, refused := Acknowledged(3, n)
			op := refused[0]
			obj := validObject(ns, op.Kind, 0, 0)
			obj.SetName(op.Name)
			return c.Create(ctx, obj)
		}, func(l Lost) bool { return l.Count == 1 && len(l.Refused) == 1 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl := fakeClient(t)
			runStream(t, cl, ns, n)
			if err := c.spoil(cl); err != nil {
				t.Fatal(err)
			}
			l, err := CheckStored(ctx, cl, ns, 3, n)
			if err != nil {
				t.Fatal(err)
			}
			if l.Checked == 0 || !c.want(l) {
				t.Errorf("CheckStored = %+v", l)
			}
		})
	}
}

// landingTimeouts stores one write in five and answers it with a timeout,
// as an API server whose answer is lost after etcd committed.
func landingTimeouts(t *testing.T) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	lost := func() error {
		if calls.Add(1)%5 == 0 {
			return fmt.Errorf("Put \"https://127.0.0.1:6443/apis\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)")
		}
		return nil
	}
	// write plays the webhook (a spoiled object is denied), then stores
	// the write and, one time in five, loses its answer.
	write := func(obj client.Object, store func() error) error {
		if isSpoiled(obj) {
			return fmt.Errorf(`admission webhook "v.omnia.altairalabs.ai" denied the request: spoiled`)
		}
		if err := store(); err != nil {
			return err
		}
		return lost()
	}
	return fake.NewClientBuilder().WithScheme(scheme).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return write(obj, func() error { return c.Create(ctx, obj, opts...) })
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			return write(obj, func() error { return c.Update(ctx, obj, opts...) })
		},
	}).Build()
}

func TestWritesToldAnErrorThatLandedAreNotLost(t *testing.T) {
	const ns, n = "landed", 80
	c := landingTimeouts(t)
	rep := runStream(t, c, ns, n)
	if len(rep.Landed) == 0 {
		t.Fatalf("no operation seen landed despite its timeout (%d failed attempts)", rep.Failed)
	}
	if !strings.Contains(rep.Landed[0], "stored although told timeout") {
		t.Errorf("a landed write does not say what the writer was told: %q", rep.Landed[0])
	}
	for _, a := range rep.Attempts {
		if a.Class != ClassTimeout {
			t.Errorf("attempt %s classed %s, want %s", a.Op, a.Class, ClassTimeout)
		}
	}
	l, err := CheckStored(context.Background(), c, ns, 3, n)
	if err != nil {
		t.Fatal(err)
	}
	if l.Count != 0 || l.Checked == 0 {
		t.Errorf("writes that landed counted lost: %+v", l)
	}
}
