package statuswrite

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// newClient is a fake client holding one Provider; patches counts status
// patches. A pure unit test of Patch: what it sends and when.
func newClient(t *testing.T, patches *int) (client.Client, *v1alpha1.Provider) {
	t.Helper()
	s := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	p := &v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	p.Status.Phase = v1alpha1.ProviderPhase("Ready")
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(p).WithStatusSubresource(p).
		WithInterceptorFuncs(interceptor.Funcs{
			SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
				*patches++
				return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
			},
		}).Build()
	got := &v1alpha1.Provider{}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(p), got); err != nil {
		t.Fatal(err)
	}
	return c, got
}

func TestPatchWritesOnlyAChange(t *testing.T) {
	for _, tc := range []struct {
		name      string
		phase     string
		wantWrite bool
	}{
		{"unchanged is no write", "Ready", false},
		{"changed is one write", "Error", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var patches int
			c, p := newClient(t, &patches)
			updated := *p.Status.DeepCopy()
			updated.Phase = v1alpha1.ProviderPhase(tc.phase)
			wrote, err := Patch(context.Background(), c, p, &p.Status, updated)
			if err != nil {
				t.Fatal(err)
			}
			if wrote != tc.wantWrite || (patches == 1) != tc.wantWrite {
				t.Fatalf("wrote %v with %d patches, want write %v", wrote, patches, tc.wantWrite)
			}
			stored := &v1alpha1.Provider{}
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(p), stored); err != nil {
				t.Fatal(err)
			}
			if string(stored.Status.Phase) != tc.phase {
				t.Fatalf("stored phase %q, want %q", stored.Status.Phase, tc.phase)
			}
		})
	}
}

func TestPatchOfADeletedObjectIsNoError(t *testing.T) {
	var patches int
	c, p := newClient(t, &patches)
	if err := c.Delete(context.Background(), p.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	updated := *p.Status.DeepCopy()
	updated.Phase = "Error"
	wrote, err := Patch(context.Background(), c, p, &p.Status, updated)
	if err != nil || wrote {
		t.Fatalf("Patch = %v, %v; want false, nil for a deleted object", wrote, err)
	}
	if p.Status.Phase != "Ready" {
		t.Fatalf("status in memory = %q after a failed write, want the one read (Ready)", p.Status.Phase)
	}
}

func TestOptimisticLockRefusesAStaleRead(t *testing.T) {
	for _, tc := range []struct {
		name         string
		lock         bool
		wantConflict bool
	}{
		{"without the lock the stale read overwrites", false, false},
		{"with the lock the stale read conflicts", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var patches int
			c, stale := newClient(t, &patches)
			fresh := stale.DeepCopy()
			fresh.Status.Phase = "Unavailable"
			if err := c.Status().Update(context.Background(), fresh); err != nil {
				t.Fatal(err)
			}
			updated := *stale.Status.DeepCopy()
			updated.Phase = "Error"
			var opts []Option
			if tc.lock {
				opts = append(opts, WithOptimisticLock())
			}
			_, err := Patch(context.Background(), c, stale, &stale.Status, updated, opts...)
			if got := apierrors.IsConflict(err); got != tc.wantConflict {
				t.Fatalf("conflict = %v (err %v), want %v", got, err, tc.wantConflict)
			}
		})
	}
}
