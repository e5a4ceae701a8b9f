package ssa

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

func built() *corev1.ServiceAccount {
	return &corev1.ServiceAccount{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "sa", Labels: map[string]string{"a": "b"}},
	}
}

func TestStampRecordsTheHashOfTheObjectAsBuilt(t *testing.T) {
	obj := built()
	want, err := Hash(built())
	if err != nil {
		t.Fatal(err)
	}
	got, err := Stamp(obj)
	if err != nil {
		t.Fatal(err)
	}
	if got != want || obj.Annotations[HashAnnotation] != want {
		t.Fatalf("Stamp = %q, annotation %q; want the hash of the object before stamping, %q", got, obj.Annotations[HashAnnotation], want)
	}
	other := built()
	other.Labels["a"] = "c"
	if h, _ := Hash(other); h == want {
		t.Fatal("two different objects hash the same")
	}
}

// TestApplyUnlessMatches: the decision to write. A pure unit test of one
// function with a fake client counting applies; the apply itself is
// exercised against the local API server by every controller's tests.
func TestApplyUnlessMatches(t *testing.T) {
	hash, err := Hash(built())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		live      func() client.Object
		wantApply bool
	}{
		{"absent is applied", func() client.Object { return nil }, true},
		{"live with the same hash is left alone", func() client.Object {
			l := built()
			l.Annotations = map[string]string{HashAnnotation: hash}
			l.ResourceVersion = "7"
			return l
		}, false},
		{"live with another hash is applied", func() client.Object {
			l := built()
			l.Annotations = map[string]string{HashAnnotation: "stale"}
			return l
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			applies := 0
			c := fake.NewClientBuilder().WithScheme(runtime.NewScheme()).WithInterceptorFuncs(interceptor.Funcs{
				Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
					applies++
					return nil
				},
			}).Build()
			obj := built()
			live := tc.live()
			if err := (Applier{Client: c, FieldManager: "test"}).ApplyUnlessMatches(context.Background(), obj, live); err != nil {
				t.Fatal(err)
			}
			if (applies == 1) != tc.wantApply {
				t.Fatalf("%d applies, want apply %v", applies, tc.wantApply)
			}
			if !tc.wantApply && obj.ResourceVersion != "7" {
				t.Fatalf("unchanged object not left as the live one: %+v", obj.ObjectMeta)
			}
			if tc.wantApply && obj.Annotations[HashAnnotation] != hash {
				t.Fatalf("applied object carries hash %q, want %q", obj.Annotations[HashAnnotation], hash)
			}
		})
	}
}
