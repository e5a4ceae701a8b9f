// Package ssa is the one server-side apply of the controllers: objects the
// builders return typed go to the API server through controller-runtime's
// Client.Apply, and an object whose live copy carries the hash of what
// would be applied is not written again (a steady state costs no write).
package ssa

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// HashAnnotation holds the sha256 of an object as built (before this
// annotation), on every object applied through ApplyIfChanged. The same
// inputs build byte-identical objects, so an equal hash on the live object
// means the apply would change nothing.
const HashAnnotation = "omnia.altairalabs.ai/applied-hash"

// Applier applies objects as one field manager.
type Applier struct {
	Client       client.Client
	FieldManager string
	// NoForce leaves a conflict with another manager to the API server
	// instead of taking the fields over (a handoff of one field).
	NoForce bool
}

// Apply server-side applies obj. The builders' typed objects are sent as
// their JSON, exactly what they marshal to; obj is left as the API server
// answers.
func (a Applier) Apply(ctx context.Context, obj client.Object) error {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		raw, err := json.Marshal(obj)
		if err != nil {
			return err
		}
		u = &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(raw); err != nil {
			return err
		}
	}
	opts := []client.ApplyOption{client.FieldOwner(a.FieldManager)}
	if !a.NoForce {
		opts = append(opts, client.ForceOwnership)
	}
	if err := a.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), opts...); err != nil {
		return err
	}
	if u == obj {
		return nil
	}
	raw, err := u.MarshalJSON()
	if err != nil {
		return err
	}
	v := reflect.ValueOf(obj).Elem()
	v.Set(reflect.Zero(v.Type()))
	return json.Unmarshal(raw, obj)
}

// Hash is the sha256 of obj's JSON.
func Hash(obj any) (string, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:]), nil
}

// Stamp records obj's hash (as built) in its HashAnnotation and returns it.
func Stamp(obj client.Object) (string, error) {
	hash, err := Hash(obj)
	if err != nil {
		return "", err
	}
	ann := maps.Clone(obj.GetAnnotations())
	if ann == nil {
		ann = map[string]string{}
	}
	ann[HashAnnotation] = hash
	obj.SetAnnotations(ann)
	return hash, nil
}

// ApplyIfChanged applies obj unless the live object, read through the
// Applier's client (the cache), carries the hash obj would be applied
// with. Either way obj is left as the API server has it: the live object
// when unchanged, the apply's answer otherwise.
func (a Applier) ApplyIfChanged(ctx context.Context, obj client.Object) error {
	live := obj.DeepCopyObject().(client.Object)
	err := a.Client.Get(ctx, client.ObjectKeyFromObject(obj), live)
	switch {
	case apierrors.IsNotFound(err):
		live = nil
	case err != nil:
		return fmt.Errorf("reading %s: %w", obj.GetName(), err)
	}
	return a.ApplyUnlessMatches(ctx, obj, live)
}

// ApplyUnlessMatches is ApplyIfChanged with the live object read by the
// caller (nil when there is none), for objects the Applier's client does
// not cache.
func (a Applier) ApplyUnlessMatches(ctx context.Context, obj, live client.Object) error {
	built := obj.DeepCopyObject().(client.Object)
	hash, err := Hash(built)
	if err != nil {
		return err
	}
	if live != nil && live.GetAnnotations()[HashAnnotation] == hash {
		reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(live).Elem())
		return nil
	}
	if _, err := Stamp(obj); err != nil {
		return err
	}
	if err := a.Apply(ctx, obj); err != nil {
		return fmt.Errorf("applying %s %s: %w", built.GetObjectKind().GroupVersionKind().Kind, built.GetName(), err)
	}
	return nil
}
