package admission

import (
	"context"
	"errors"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/rules"
)

// NamespaceGetter returns a Namespace; the manager answers from its cache.
type NamespaceGetter func(ctx context.Context, name string) (*corev1.Namespace, error)

// maxNamespaceLookups bounds the Namespaces one request looks up: policy
// rules ask about the object's own namespace only, so one is the norm.
const maxNamespaceLookups = 4

// requestFacts are one request's facts with the Namespace answered
// (rules.NamespaceFacts), for policy rules' namespaceSelector and
// namespaceObject. The lookup is lazy — a request no policy rule matches
// never reads a Namespace — and remembered for the request. A lookup that
// fails for another reason than "not found" is kept for Err: a policy
// whose namespaceSelector could not be judged may have been skipped, so the
// request is answered as for any unknown cluster fact (fail closed in
// enforce mode).
type requestFacts struct {
	rules.Facts
	ctx    context.Context
	lookup NamespaceGetter
	// podSecurity are the Config's, for the pod rules
	// (rules.PodSecurityFacts), whichever facts the request uses.
	podSecurity rules.PodSecuritySettings

	mu   sync.Mutex
	seen map[string]*corev1.Namespace
	errs []error
}

var (
	_ rules.NamespaceFacts   = (*requestFacts)(nil)
	_ rules.PodSecurityFacts = (*requestFacts)(nil)
)

// namespaceFacts wraps facts with the Config's Namespace source.
func (c *Config) namespaceFacts(ctx context.Context, facts rules.Facts) *requestFacts {
	f := &requestFacts{Facts: facts, ctx: ctx, seen: map[string]*corev1.Namespace{}, podSecurity: c.PodSecurity}
	switch {
	case c.Namespace != nil:
		f.lookup = c.Namespace
	case c.NamespaceLabels != nil:
		labels := c.NamespaceLabels
		f.lookup = func(ctx context.Context, name string) (*corev1.Namespace, error) {
			l, err := labels(ctx, name)
			if err != nil {
				return nil, err
			}
			return &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}}, nil
		}
	}
	return f
}

// Namespace implements rules.NamespaceFacts.
func (f *requestFacts) Namespace(name string) (*corev1.Namespace, bool) {
	if f.lookup == nil || name == "" {
		return nil, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if ns, ok := f.seen[name]; ok {
		return ns, ns != nil
	}
	if len(f.seen) >= maxNamespaceLookups {
		f.errs = append(f.errs, fmt.Errorf("looking up Namespace %s: more than %d Namespaces asked for in one request", name, maxNamespaceLookups))
		return nil, false
	}
	ns, err := f.lookup(f.ctx, name)
	switch {
	case err == nil && ns != nil:
		f.seen[name] = ns
		return ns, true
	case err == nil || apierrors.IsNotFound(err):
		// No such Namespace in the cache: rules.NamespaceOf builds it bare.
		f.seen[name] = nil
		return nil, false
	default:
		f.seen[name] = nil
		f.errs = append(f.errs, fmt.Errorf("looking up Namespace %s: %w", name, err))
		return nil, false
	}
}

// PodSecuritySettings implements rules.PodSecurityFacts.
func (f *requestFacts) PodSecuritySettings() rules.PodSecuritySettings { return f.podSecurity }

// Err returns the Namespace lookups that could not be answered.
func (f *requestFacts) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return errors.Join(f.errs...)
}
