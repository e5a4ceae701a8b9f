package clusterfacts

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/rules"
)

// secretStore is the API server's Secrets, counting the reads (a pure unit
// test of the caching; the controllers' envtests read real Secrets).
type secretStore struct {
	secrets map[client.ObjectKey]*corev1.Secret
	reads   int
}

func (s *secretStore) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	s.reads++
	sec, ok := s.secrets[key]
	if !ok {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, key.Name)
	}
	sec.DeepCopyInto(obj.(*corev1.Secret))
	return nil
}

func (s *secretStore) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return nil
}

// metadataView is the metadata informer's view: resourceVersions by key
// (absent: not in the cache).
type metadataView map[client.ObjectKey]string

func (m metadataView) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	rv, ok := m[key]
	if !ok {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, key.Name)
	}
	obj.(*metav1.PartialObjectMetadata).ResourceVersion = rv
	return nil
}

func (m metadataView) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return nil
}

func TestSecretKeyCache(t *testing.T) {
	key := client.ObjectKey{Namespace: "agents", Name: "creds"}
	secret := func(rv string, keys ...string) *corev1.Secret {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name, ResourceVersion: rv}, Data: map[string][]byte{}}
		for _, k := range keys {
			s.Data[k] = []byte("value")
		}
		return s
	}
	cases := []struct {
		name string
		// first is the Secret the first evaluation reads; then the API
		// server's Secret (nil: deleted) and the metadata cache's view
		// (empty: the Secret is not in it) for the second.
		first     *corev1.Secret
		then      *corev1.Secret
		metadata  metadataView
		wantKeys  []string
		wantFound bool
		// wantReads is the API reads of the second evaluation.
		wantReads int
	}{
		{"unchanged Secret is not read again", secret("1", "ANTHROPIC_API_KEY"), secret("1", "ANTHROPIC_API_KEY"),
			metadataView{key: "1"}, []string{"ANTHROPIC_API_KEY"}, true, 0},
		{"a changed Secret is read again", secret("1", "ANTHROPIC_API_KEY"), secret("2", "CLAUDE_API_KEY"),
			metadataView{key: "2"}, []string{"CLAUDE_API_KEY"}, true, 1},
		{"absent from the metadata cache: read from the API server", secret("1", "a"), secret("1", "a"),
			metadataView{}, []string{"a"}, true, 1},
		{"deleted Secret is not found", secret("1", "a"), nil,
			metadataView{}, nil, false, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store := &secretStore{secrets: map[client.ObjectKey]*corev1.Secret{key: tc.first}}
			meta := metadataView{key: tc.first.ResourceVersion}
			c := NewSecretKeyCache(meta)
			ctx := context.Background()
			if _, ok := New(ctx, failingReader{}, store, nil, rules.License{}).WithSecretKeyCache(c).SecretKeys(key.Namespace, key.Name); !ok {
				t.Fatal("first read: not found")
			}
			store.reads = 0
			delete(store.secrets, key)
			if tc.then != nil {
				store.secrets[key] = tc.then
			}
			c.metadata = tc.metadata
			f := New(ctx, failingReader{}, store, nil, rules.License{}).WithSecretKeyCache(c)
			keys, found := f.SecretKeys(key.Namespace, key.Name)
			slices.Sort(keys)
			if found != tc.wantFound || !slices.Equal(keys, tc.wantKeys) {
				t.Errorf("SecretKeys = %v, %v; want %v, %v", keys, found, tc.wantKeys, tc.wantFound)
			}
			if store.reads != tc.wantReads {
				t.Errorf("API reads %d, want %d", store.reads, tc.wantReads)
			}
			if err := f.Err(); err != nil {
				t.Errorf("Err: %v", err)
			}
		})
	}
}

// TestSecretReadOncePerEvaluation: the rules of one evaluation that ask
// about the same Secret (its keys, then a value) cause one read; the next
// evaluation reads it again (nothing outlives the Facts).
func TestSecretReadOncePerEvaluation(t *testing.T) {
	key := client.ObjectKey{Namespace: "agents", Name: "creds"}
	store := &secretStore{secrets: map[client.ObjectKey]*corev1.Secret{key: {
		ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name},
		Data:       map[string][]byte{"api-key": []byte("sk-x")},
	}}}
	for eval := 1; eval <= 2; eval++ {
		f := New(context.Background(), failingReader{}, store, nil, rules.License{})
		if _, ok := f.SecretKeys(key.Namespace, key.Name); !ok {
			t.Fatal("SecretKeys: not found")
		}
		if _, ok := f.SecretValueMatches(key.Namespace, key.Name, "api-key", func(v []byte) (string, bool) { return "matched", len(v) > 0 }); !ok {
			t.Fatal("SecretValueMatches: no match")
		}
		if _, ok := f.SecretKeys("agents", "other"); ok {
			t.Fatal("SecretKeys found a Secret that does not exist")
		}
		if store.reads != 2*eval {
			t.Errorf("after evaluation %d: %d reads, want %d (one per Secret per evaluation)", eval, store.reads, 2*eval)
		}
	}
}
