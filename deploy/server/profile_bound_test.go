package server

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// The profile is bounded: a workspace with more Providers than
// MaxProfileEntries gets the first ones by name. (A pure unit test of
// Profile's bound; the profile's content is tested on the real API server
// in server_test.go.)
func TestProfileIsBounded(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	b := fake.NewClientBuilder().WithScheme(scheme)
	for i := 0; i <= MaxProfileEntries; i++ {
		b = b.WithObjects(&v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: "ws", Name: fmt.Sprintf("p-%04d", i)},
			Spec: v1alpha1.ProviderSpec{Type: v1alpha1.ProviderTypeMock}})
	}
	p, err := Profile(context.Background(), b.Build(), "ws", "acme", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Providers) != MaxProfileEntries || p.Providers[0].Name != "p-0000" || p.Providers[MaxProfileEntries-1].Name != fmt.Sprintf("p-%04d", MaxProfileEntries-1) {
		t.Errorf("%d providers, first %q: want the first %d by name", len(p.Providers), p.Providers[0].Name, MaxProfileEntries)
	}
}
