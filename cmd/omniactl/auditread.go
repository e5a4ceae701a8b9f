package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/altairalabs/omnia/api/v1alpha1"
	crdschema "github.com/altairalabs/omnia/rules/schema"
)

// What omniactl audit reads from a live cluster, turned into the documents
// omniactl check builds from files, so both judge through one path
// (evaluate): the Omnia objects, and the facts the rules ask about —
// Namespaces, Secrets (their keys; values are dropped as each page is read
// and never kept or printed), the ConfigMaps PromptPacks name, PVCs and the
// installed CRDs (API discovery).

// listPageSize is the page of a list request. Secrets are read in smaller
// pages: a page holds their values until its keys are taken.
const (
	listPageSize   = 500
	secretPageSize = 100
)

// clusterReader lists through a dynamic client, paged and bounded.
type clusterReader struct {
	dyn  dynamic.Interface
	disc discovery.DiscoveryInterface
	// max bounds each list (the Omnia objects together, each fact kind on
	// its own): beyond it the audit stops with an error.
	max int
	// source names the cluster in reports: "cluster:<context>".
	source string
	// stderr receives notes on what could not be read and was left out.
	stderr io.Writer
}

// auditScope is where an audit looks: one namespace, or all of them.
type auditScope struct {
	namespace string // "" with all
	all       bool
}

func (s auditScope) String() string {
	if s.all {
		return "all namespaces"
	}
	return "namespace " + s.namespace
}

// listNamespace is the namespace a namespaced list is made in ("" lists
// every namespace).
func (s auditScope) listNamespace() string {
	if s.all {
		return ""
	}
	return s.namespace
}

// omniaResource is an Omnia kind the API server serves.
type omniaResource struct {
	kind       string
	resource   string
	namespaced bool
}

var (
	coreV1                = schema.GroupVersion{Version: "v1"}
	secretsResource       = coreV1.WithResource("secrets")
	configMapsResource    = coreV1.WithResource("configmaps")
	claimsResource        = coreV1.WithResource("persistentvolumeclaims")
	namespacesResource    = coreV1.WithResource("namespaces")
	errTooMany            = errors.New("too many objects")
	serverSetMetadataKeys = []string{"resourceVersion", "managedFields", "uid", "creationTimestamp", "generation", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"}
)

// discover returns the Omnia kinds the cluster serves (of those the
// embedded CRDs define, sorted) and every group/Kind it serves (the
// installed-CRD facts). An Omnia kind the cluster does not serve is noted
// and left out.
func (c *clusterReader) discover() ([]omniaResource, []string, error) {
	_, lists, err := c.disc.ServerGroupsAndResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, nil, fmt.Errorf("API discovery: %w", err)
	}
	if err != nil {
		// Some aggregated API is down; what was discovered still answers.
		fmt.Fprintf(c.stderr, "omniactl audit: note: %v\n", err)
	}
	served := map[string]omniaResource{}
	var groupKinds []string
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") {
				continue // a subresource
			}
			if gv.Group != "" {
				groupKinds = append(groupKinds, gv.Group+"/"+r.Kind)
			}
			if gv == v1alpha1.GroupVersion {
				served[r.Kind] = omniaResource{kind: r.Kind, resource: r.Name, namespaced: r.Namespaced}
			}
		}
	}
	var out []omniaResource
	var missing []string
	for _, kind := range crdschema.Kinds() {
		r, ok := served[kind]
		if !ok {
			missing = append(missing, kind)
			continue
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, nil, fmt.Errorf("the cluster serves no %s kind: are the Omnia CRDs installed?", v1alpha1.GroupVersion)
	}
	if len(missing) > 0 {
		fmt.Fprintf(c.stderr, "omniactl audit: note: the cluster does not serve %s %s; not audited\n", v1alpha1.GroupVersion, strings.Join(missing, ", "))
	}
	sort.Strings(groupKinds)
	return out, groupKinds, nil
}

// list calls each on every object of gvr in namespace ("" for all or a
// cluster-scoped resource), page by page. *budget is how many more objects
// may be read; beyond it list returns errTooMany.
func (c *clusterReader) list(ctx context.Context, gvr schema.GroupVersionResource, namespace string, pageSize int64, budget *int, each func(u *unstructured.Unstructured) error) error {
	var ri dynamic.ResourceInterface = c.dyn.Resource(gvr)
	if namespace != "" {
		ri = c.dyn.Resource(gvr).Namespace(namespace)
	}
	opts := metav1.ListOptions{Limit: pageSize}
	for {
		page, err := ri.List(ctx, opts)
		if err != nil {
			return err
		}
		for i := range page.Items {
			if *budget <= 0 {
				return errTooMany
			}
			*budget--
			if err := each(&page.Items[i]); err != nil {
				return err
			}
			// Drop each object as soon as it is taken (a Secret's values).
			page.Items[i] = unstructured.Unstructured{}
		}
		if opts.Continue = page.GetContinue(); opts.Continue == "" {
			return nil
		}
	}
}

// listError explains a failed list of what in scope.
func (c *clusterReader) listError(what string, scope auditScope, err error) error {
	switch {
	case errors.Is(err, errTooMany):
		return fmt.Errorf("more than %d %s in %s: narrow the audit with -n NAMESPACE or raise --max-objects", c.max, what, scope)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("listing %s in %s: %v (omniactl audit needs get and list on it)", what, scope, err)
	}
	return fmt.Errorf("listing %s in %s: %w", what, scope, err)
}

// strip turns a stored object into the manifest it was created from, as
// far as the schema can tell: no status and none of the metadata the API
// server sets, so the schema judges the spec as on a create.
func strip(obj map[string]any) {
	delete(obj, "status")
	meta, _ := obj["metadata"].(map[string]any)
	for _, k := range serverSetMetadataKeys {
		delete(meta, k)
	}
}

// readOmnia lists every Omnia object in scope (cluster-scoped kinds too:
// with -n they are facts only, not judged) and returns them as check's
// documents, with their UIDs for the reports. ValidationPolicies come back
// apart, typed, to be compiled.
func (c *clusterReader) readOmnia(ctx context.Context, kinds []omniaResource, scope auditScope) ([]document, []*v1alpha1.ValidationPolicy, error) {
	var (
		docs     []document
		policies []*v1alpha1.ValidationPolicy
		budget   = c.max
	)
	for _, r := range kinds {
		namespace := scope.listNamespace()
		if !r.namespaced {
			namespace = ""
		}
		factOnly := !r.namespaced && !scope.all
		err := c.list(ctx, v1alpha1.GroupVersion.WithResource(r.resource), namespace, listPageSize, &budget, func(u *unstructured.Unstructured) error {
			uid := string(u.GetUID())
			strip(u.Object)
			u.SetAPIVersion(v1alpha1.GroupVersion.String())
			u.SetKind(r.kind)
			d := document{file: c.source}
			if err := prepare(&d, u.Object, checkConfig{}); err != nil {
				return fmt.Errorf("%s %s: %w", r.kind, objectName(u.GetNamespace(), u.GetName()), err)
			}
			d.uid, d.factOnly = uid, factOnly
			if r.kind == policyKind {
				p, err := storedPolicy(u.Object)
				if p != nil {
					p.UID = types.UID(uid)
				}
				if err != nil {
					fmt.Fprintf(c.stderr, "omniactl audit: %s %s cannot be read (%v); not applied\n", policyKind, u.GetName(), err)
				} else {
					policies = append(policies, p)
				}
			}
			docs = append(docs, d)
			return nil
		})
		if err != nil && !r.namespaced && !scope.all && apierrors.IsForbidden(err) {
			// With -n, cluster-scoped objects are only facts; a user who
			// may not list them audits without them.
			fmt.Fprintf(c.stderr, "omniactl audit: note: cannot list %s (%v); audited without them\n", r.resource, err)
			continue
		}
		if err != nil {
			return nil, nil, c.listError("Omnia objects ("+r.resource+")", scope, err)
		}
	}
	return docs, policies, nil
}

// storedPolicy decodes a stored ValidationPolicy (already stripped).
func storedPolicy(obj map[string]any) (*v1alpha1.ValidationPolicy, error) {
	p := &v1alpha1.ValidationPolicy{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, p); err != nil {
		return nil, err
	}
	return p, nil
}

// readFacts lists the core objects the rules ask about, in scope, as
// documents: Namespaces, Secrets (keys only), PVCs, and the ConfigMaps the
// PromptPacks among omnia name.
func (c *clusterReader) readFacts(ctx context.Context, scope auditScope, omnia []document) ([]document, error) {
	var docs []document
	ns := scope.listNamespace()

	// Namespaces: every one with -A; with -n the one audited, read bare
	// when the user may not get it.
	if scope.all {
		budget := c.max
		err := c.list(ctx, namespacesResource, "", listPageSize, &budget, func(u *unstructured.Unstructured) error {
			docs = append(docs, document{file: c.source, class: classNamespace, name: u.GetName(), ns: namespaceFact(u.Object)})
			return nil
		})
		if err != nil {
			return nil, c.listError("Namespaces", scope, err)
		}
	} else {
		u, err := c.dyn.Resource(namespacesResource).Get(ctx, scope.namespace, metav1.GetOptions{})
		switch {
		case err == nil:
			docs = append(docs, document{file: c.source, class: classNamespace, name: u.GetName(), ns: namespaceFact(u.Object)})
		case apierrors.IsNotFound(err):
			return nil, fmt.Errorf("namespace %q does not exist", scope.namespace)
		default:
			fmt.Fprintf(c.stderr, "omniactl audit: note: cannot read namespace %s (%v); policies see it without labels\n", scope.namespace, err)
		}
	}

	// Secrets: their keys; the values are dropped with each page.
	budget := c.max
	err := c.list(ctx, secretsResource, ns, secretPageSize, &budget, func(u *unstructured.Unstructured) error {
		docs = append(docs, document{file: c.source, class: classSecret, namespace: u.GetNamespace(), name: u.GetName(), secretKeys: secretKeys(u.Object)})
		delete(u.Object, "data")
		delete(u.Object, "stringData")
		return nil
	})
	if err != nil {
		return nil, c.listError("Secrets", scope, err)
	}

	budget = c.max
	err = c.list(ctx, claimsResource, ns, listPageSize, &budget, func(u *unstructured.Unstructured) error {
		docs = append(docs, document{file: c.source, class: classClaim, namespace: u.GetNamespace(), name: u.GetName()})
		return nil
	})
	if err != nil {
		return nil, c.listError("PersistentVolumeClaims", scope, err)
	}

	cms, err := c.readConfigMaps(ctx, omnia)
	if err != nil {
		return nil, err
	}
	return append(docs, cms...), nil
}

// readConfigMaps gets the ConfigMaps PromptPacks name as their source (the
// only ConfigMaps a rule reads), once each. One that does not exist is
// left out: the rule reports it missing.
func (c *clusterReader) readConfigMaps(ctx context.Context, omnia []document) ([]document, error) {
	type key struct{ namespace, name string }
	wanted := map[key]bool{}
	for _, d := range omnia {
		p, ok := d.fact.(*v1alpha1.PromptPack)
		if !ok || p.Spec.Source.ConfigMapRef == nil || p.Spec.Source.ConfigMapRef.Name == "" {
			continue
		}
		wanted[key{p.Namespace, p.Spec.Source.ConfigMapRef.Name}] = true
	}
	keys := make([]key, 0, len(wanted))
	for k := range wanted {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].namespace != keys[j].namespace {
			return keys[i].namespace < keys[j].namespace
		}
		return keys[i].name < keys[j].name
	})
	var docs []document
	for _, k := range keys {
		u, err := c.dyn.Resource(configMapsResource).Namespace(k.namespace).Get(ctx, k.name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading ConfigMap %s/%s: %w", k.namespace, k.name, err)
		}
		data, err := configMapData(u.Object)
		if err != nil {
			return nil, fmt.Errorf("ConfigMap %s/%s: %w", k.namespace, k.name, err)
		}
		docs = append(docs, document{file: c.source, class: classConfigMap, namespace: k.namespace, name: k.name, configMapData: data})
	}
	return docs, nil
}

// crdDocuments are the installed-CRD facts: one per group/Kind served.
func (c *clusterReader) crdDocuments(groupKinds []string) []document {
	docs := make([]document, 0, len(groupKinds))
	for _, gk := range groupKinds {
		docs = append(docs, document{file: c.source, class: classCRD, crd: gk})
	}
	return docs
}
