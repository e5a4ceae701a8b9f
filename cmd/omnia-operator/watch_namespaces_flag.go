package main

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// watchFlags is --watch-namespaces, the namespace-scoped install
// (docs/install.md § Namespace-scoped install): the operator caches,
// reconciles and validates only the namespaces listed, so it needs Secret,
// Deployment and Role rights in those namespaces alone (config/namespaced
// binds them there) and cluster-wide only the reads of cluster-scoped
// kinds. Empty: every namespace, with the ClusterRole of config/rbac.
type watchFlags struct {
	namespaces string
}

func (f *watchFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&f.namespaces, "watch-namespaces", "",
		"comma-separated namespaces the operator caches, reconciles and validates (its own namespace is always added); "+
			"empty: every namespace. With a list, bind config/namespaced's roles in each of them instead of config/rbac's ClusterRole")
}

// maxWatchNamespaces bounds the list: each namespace is a set of informers.
const maxWatchNamespaces = 64

// parseWatchNamespaces returns the namespaces of a --watch-namespaces
// value, own added, sorted and without duplicates; nil for an empty value
// (every namespace).
func parseWatchNamespaces(value, own string) ([]string, error) {
	if strings.TrimSpace(value) == "" {
		return nil, nil
	}
	var out []string
	for _, ns := range strings.Split(value, ",") {
		ns = strings.TrimSpace(ns)
		if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
			return nil, fmt.Errorf("--watch-namespaces: %q is not a namespace name: %s", ns, strings.Join(errs, "; "))
		}
		out = append(out, ns)
	}
	out = append(out, own)
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > maxWatchNamespaces {
		return nil, fmt.Errorf("--watch-namespaces: %d namespaces, at most %d", len(out), maxWatchNamespaces)
	}
	return out, nil
}

// defaultNamespaces is the cache's DefaultNamespaces for a watched list:
// nil (every namespace) when the list is empty. Cluster-scoped kinds
// (Namespaces, Workspaces, ValidationPolicies) are cached whole either way.
func defaultNamespaces(watched []string) map[string]cache.Config {
	if len(watched) == 0 {
		return nil
	}
	out := make(map[string]cache.Config, len(watched))
	for _, ns := range watched {
		out[ns] = cache.Config{}
	}
	return out
}
