package rules

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// scheme knows the Omnia kinds; it builds typed objects from decoded JSON.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}()

// Typed converts a decoded JSON object (apiVersion/kind set) into its typed
// Omnia object. It fails with a message naming the kind when the object's
// shape does not fit the type.
func Typed(obj map[string]any) (runtime.Object, error) {
	kind, _ := obj["kind"].(string)
	typed, err := scheme.New(v1alpha1.GroupVersion.WithKind(kind))
	if err != nil {
		return nil, fmt.Errorf("kind %q is not an Omnia kind served by %s", kind, v1alpha1.GroupVersion)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, typed); err != nil {
		return nil, fmt.Errorf("%s does not fit its schema: %w", kind, err)
	}
	return typed, nil
}
