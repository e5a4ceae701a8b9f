package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	goruntime "runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/intent"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/rules/schema"
)

// checkConfig says how check evaluates.
type checkConfig struct {
	// Namespace is given to namespaced documents that name none (as
	// `kubectl apply -n` would); empty leaves them without one.
	Namespace string
	// Severity overrides rule severities by ID, as the operator's
	// --rule-severity does.
	Severity map[string]rules.Severity
	// Workers evaluate documents in parallel; 0 means GOMAXPROCS.
	Workers int
	// TuneMemory sets the process's garbage collector for one check (the
	// omniactl binary; tests leave it alone): see tuneMemory.
	TuneMemory bool
	// License is the verified licence the rules see (--license); the zero
	// value is the open-core licence.
	License rules.License
	// PodSecurity are the operator's pod limits the pod rules judge with
	// (--pod-security-level, --agent-runtime-classes, as the operator's
	// flags of the same names); zero: the operator's defaults.
	PodSecurity rules.PodSecuritySettings
	// ExposureBaseDomain is --exposure-base-domain (rules.Facts'
	// ExposureBaseDomain); empty: exposure off.
	ExposureBaseDomain string
	// PolicyPaths are the --policy files and directories: their
	// ValidationPolicies are compiled and their rules join the catalog.
	PolicyPaths []string
	// Catalog, when set, is the catalog to judge with (omniactl audit
	// builds it from the cluster's policies); nil means rules.Default plus
	// the PolicyPaths policies.
	Catalog *rules.Catalog
	// PolicyApplied records, per document, the policy rules that judged
	// it (omniactl audit --report: a rule that applied without a finding
	// is a pass).
	PolicyApplied bool
}

// tuneMemory sets the garbage collector for a check of inputBytes of
// manifests. Evaluation allocates about 0.5 MB of short-lived garbage per
// document (the API server's CEL and OpenAPI validators) over a small live
// heap: the validators (~8 MiB) and the documents, held as compact JSON
// (about twice the input size). Collect rarely (GOGC=400) under a soft
// memory limit of 56 MiB plus room for the documents: the heap goal stays
// ~40 MiB above the live heap for any input size, which keeps a
// 5,000-document (4.4 MB) check at ~82 MiB RSS; a lower limit costs CPU in
// extra collections for little memory.
func tuneMemory(inputBytes int) {
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(56<<20 + 2*int64(inputBytes))
}

// result is one evaluated Omnia document and its findings.
type result struct {
	File       string
	Document   int
	Line       int
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
	// UID is a listed object's (omniactl audit); empty for a file's.
	UID      string
	Findings []rules.Finding
	// Applied are the IDs of the policy rules that judged the document,
	// sorted (only with checkConfig.PolicyApplied).
	Applied []string
}

// denied reports whether any finding refuses the document.
func (r *result) denied() bool {
	for _, f := range r.Findings {
		if f.Severity == rules.SeverityDeny {
			return true
		}
	}
	return false
}

// report is the outcome of one check.
type report struct {
	// Results are the Omnia documents evaluated, in input order.
	Results []result
	// Facts counts documents used only as facts (Secrets, CRDs).
	Facts int
	// Skipped counts non-Omnia documents that were not checked.
	Skipped int
	// catalog is the catalog the documents were judged with (the built-in
	// rules and the policies in force); the SARIF writer describes its
	// rules.
	catalog *rules.Catalog
}

// rules returns the catalog the report was judged with.
func (r *report) rules() *rules.Catalog {
	if r.catalog == nil {
		return rules.Default
	}
	return r.catalog
}

// denied reports whether any document is refused.
func (r *report) denied() bool {
	for i := range r.Results {
		if r.Results[i].denied() {
			return true
		}
	}
	return false
}

// counts returns how many findings deny and warn.
func (r *report) counts() (deny, warn int) {
	for _, res := range r.Results {
		for _, f := range res.Findings {
			if f.Severity == rules.SeverityDeny {
				deny++
			} else {
				warn++
			}
		}
	}
	return deny, warn
}

// document is one parsed manifest. Documents are numbered from 1 in file
// order; empty documents (only comments or whitespace) are not counted.
type document struct {
	file  string
	index int // 1-based
	line  int // first line of the document in the file (1-based)

	class                             int
	apiVersion, kind, namespace, name string
	// raw is an Omnia document as the JSON the API server would receive,
	// held compactly until it is evaluated.
	raw []byte
	// fact is the typed object of a fact kind (Provider, PromptPack,
	// Workspace, ToolPolicy).
	fact runtime.Object
	// secretKeys are a Secret's data keys; its values are never kept.
	secretKeys []string
	// configMapData is a ConfigMap's data and binaryData (a PromptPack's
	// pack.json is read from it).
	configMapData map[string][]byte
	// crd is the group/Kind a CustomResourceDefinition installs.
	crd string
	// ns is a Namespace document's metadata.
	ns *corev1.Namespace
	// uid is a listed object's UID (omniactl audit: the reports name it).
	uid string
	// factOnly marks an Omnia document used only as a fact, not judged
	// (omniactl audit -n: the cluster-scoped objects a namespace's objects
	// refer to).
	factOnly bool
}

// Document classes.
const (
	classEmpty = iota
	classSkip
	classOmnia
	classSecret
	classConfigMap
	classCRD
	classClaim // a PersistentVolumeClaim: only its name is a fact
	// classNamespace is a Namespace: its name, labels and annotations are a
	// fact (a policy's namespaceSelector and namespaceObject read them).
	classNamespace
	// classIntent is a deploy intent (apiVersion deploy.omnia.altairalabs.ai/v1,
	// no kind): decoded as the deploy API decodes it and judged by the
	// deployintent/* rules, so check and the API answer the same.
	classIntent
)

// check reads the given paths and evaluates every Omnia document in them.
// An *inputError means the input is unusable (exit 2).
func check(ctx context.Context, paths []string, stdin io.Reader, cfg checkConfig) (*report, error) {
	// Build the validators while the input is read and parsed.
	var (
		sv     *schema.Validator
		svErr  error
		svDone = make(chan struct{})
	)
	go func() { sv, svErr = schema.Default(); close(svDone) }()

	workers := cfg.Workers
	if workers <= 0 {
		workers = goruntime.GOMAXPROCS(0)
	}
	docs, err := loadDocuments(paths, stdin, cfg, workers)
	if err != nil {
		return nil, err
	}
	<-svDone
	if svErr != nil {
		return nil, fmt.Errorf("building the schema validators: %w", svErr)
	}
	if cfg.Catalog == nil {
		if cfg.Catalog, _, err = loadPolicyCatalog(ctx, sv, cfg.PolicyPaths, cfg.Severity); err != nil {
			return nil, err
		}
	}
	return evaluate(ctx, sv, docs, cfg, workers)
}

// loadDocuments reads, splits, parses and classifies the input, each YAML
// document parsed once, on workers. The raw input is dropped once parsed.
func loadDocuments(paths []string, stdin io.Reader, cfg checkConfig, workers int) ([]document, error) {
	sources, err := readSources(paths, stdin)
	if err != nil {
		return nil, err
	}
	if cfg.TuneMemory {
		total := 0
		for _, s := range sources {
			total += len(s.data)
		}
		tuneMemory(total)
	}
	chunks, err := splitSources(sources)
	if err != nil {
		return nil, err
	}
	docs := make([]document, len(chunks))
	errs := make([]error, len(chunks))
	parallel(len(chunks), workers, func(i int) {
		c := chunks[i]
		docs[i] = document{file: c.file, line: c.line}
		obj, err := parseChunk(c)
		chunks[i].data = nil
		if err != nil {
			errs[i] = err
			return
		}
		if obj == nil {
			return // empty document
		}
		errs[i] = prepare(&docs[i], obj, cfg)
	})
	// Number the documents of each file and report every unusable one.
	out := docs[:0]
	var problems []string
	index := map[string]int{}
	for i := range docs {
		d := docs[i]
		if errs[i] == nil && d.class == classEmpty {
			continue
		}
		index[d.file]++
		d.index = index[d.file]
		if errs[i] != nil {
			problems = append(problems, fmt.Sprintf("%s: document %d (line %d): %v", d.file, d.index, d.line, errs[i]))
			continue
		}
		out = append(out, d)
	}
	if len(problems) > 0 {
		return nil, &inputError{msg: strings.Join(problems, "\n")}
	}
	return out, nil
}

// prepare classifies one parsed document and keeps what evaluation needs of
// it: an Omnia document as compact JSON (and its typed object when it is a
// fact kind), a Secret's keys, a CRD's group/Kind. An unnamespaced
// namespaced document is given cfg.Namespace first.
func prepare(d *document, obj map[string]any, cfg checkConfig) error {
	apiVersion, ok := obj["apiVersion"].(string)
	if !ok || apiVersion == "" {
		return fmt.Errorf("no apiVersion: every manifest needs apiVersion and kind")
	}
	if apiVersion == intent.APIVersion {
		return prepareIntent(d, obj)
	}
	kind, ok := obj["kind"].(string)
	if !ok || kind == "" {
		return fmt.Errorf("no kind: every manifest needs apiVersion and kind")
	}
	d.apiVersion, d.kind = apiVersion, kind
	group, version, hasGroup := strings.Cut(apiVersion, "/")
	if !hasGroup {
		group, version = "", apiVersion
	}
	switch {
	case group == v1alpha1.GroupVersion.Group:
		namespaced, known := schema.Namespaced(kind)
		if !known {
			return fmt.Errorf("%s has no kind %q (known kinds: %s)", apiVersion, kind, strings.Join(schema.Kinds(), ", "))
		}
		if version != v1alpha1.GroupVersion.Version {
			return fmt.Errorf("%s apiVersion %s is not served; use %s", kind, apiVersion, v1alpha1.GroupVersion)
		}
		if namespaced {
			setNamespace(obj, cfg.Namespace)
		}
		d.class = classOmnia
		d.namespace, d.name = metaNames(obj)
		if rules.IsFactKind(kind) {
			// A document whose shape does not fit its type is no fact;
			// its own evaluation reports why.
			if typed, err := rules.Typed(obj); err == nil {
				d.fact = typed
			}
		}
		raw, err := json.Marshal(obj)
		if err != nil {
			return err
		}
		d.raw = raw
	case group == "" && version == "v1" && kind == "Secret":
		setNamespace(obj, cfg.Namespace)
		d.class = classSecret
		d.namespace, d.name = metaNames(obj)
		d.secretKeys = secretKeys(obj)
	case group == "" && version == "v1" && kind == "ConfigMap":
		setNamespace(obj, cfg.Namespace)
		d.class = classConfigMap
		d.namespace, d.name = metaNames(obj)
		data, err := configMapData(obj)
		if err != nil {
			return err
		}
		d.configMapData = data
	case group == "" && version == "v1" && kind == "Namespace":
		d.class = classNamespace
		_, d.name = metaNames(obj)
		d.ns = namespaceFact(obj)
	case group == "" && version == "v1" && kind == "PersistentVolumeClaim":
		setNamespace(obj, cfg.Namespace)
		d.class = classClaim
		d.namespace, d.name = metaNames(obj)
	case group == "apiextensions.k8s.io" && kind == "CustomResourceDefinition":
		d.class = classCRD
		spec, _ := obj["spec"].(map[string]any)
		crdGroup, _ := spec["group"].(string)
		names, _ := spec["names"].(map[string]any)
		crdKind, _ := names["kind"].(string)
		if crdGroup != "" && crdKind != "" {
			d.crd = crdGroup + "/" + crdKind
		}
	default:
		d.class = classSkip
	}
	return nil
}

// namespaceFact keeps what policies read of a Namespace document: its name,
// labels and annotations (string values only; the schema of a Namespace is
// the API server's business, not check's).
func namespaceFact(obj map[string]any) *corev1.Namespace {
	meta, _ := obj["metadata"].(map[string]any)
	ns := &corev1.Namespace{}
	ns.Name, _ = meta["name"].(string)
	ns.Labels = stringMap(meta["labels"])
	ns.Annotations = stringMap(meta["annotations"])
	return ns
}

func stringMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		if s, ok := e.(string); ok {
			out[k] = s
		}
	}
	return out
}

func metaNames(obj map[string]any) (namespace, name string) {
	meta, _ := obj["metadata"].(map[string]any)
	namespace, _ = meta["namespace"].(string)
	name, _ = meta["name"].(string)
	return namespace, name
}

// evaluate collects the facts (in input order: a later document replaces an
// earlier one of the same name) and runs rules.Full on every Omnia document,
// on workers.
func evaluate(ctx context.Context, sv *schema.Validator, docs []document, cfg checkConfig, workers int) (*report, error) {
	facts := rules.NewManifestFacts()
	facts.SetLicense(cfg.License)
	facts.SetExposureBaseDomain(cfg.ExposureBaseDomain)
	cat := cfg.Catalog
	if cat == nil {
		cat = rules.Default
	}
	rep := &report{catalog: cat}
	omnia := make([]int, 0, len(docs))
	for i := range docs {
		d := &docs[i]
		switch d.class {
		case classOmnia:
			if !d.factOnly {
				omnia = append(omnia, i)
			} else {
				rep.Facts++
			}
			if d.fact != nil {
				if err := facts.Add(d.fact); err != nil {
					return nil, err
				}
				d.fact = nil
			}
		case classSecret:
			facts.AddSecret(d.namespace, d.name, d.secretKeys)
			rep.Facts++
		case classConfigMap:
			facts.AddConfigMap(d.namespace, d.name, d.configMapData)
			d.configMapData = nil
			rep.Facts++
		case classClaim:
			facts.AddPersistentVolumeClaim(d.namespace, d.name)
			rep.Facts++
		case classNamespace:
			facts.AddNamespace(d.ns)
			d.ns = nil
			rep.Facts++
		case classCRD:
			if d.crd != "" {
				facts.AddCRD(d.crd)
			}
			rep.Facts++
		case classIntent:
			// Judged by evaluateIntents.
		default:
			rep.Skipped++
		}
	}

	judged := rules.WithPodSecuritySettings(facts, cfg.PodSecurity)
	intentResults, err := evaluateIntents(docs, judged)
	if err != nil {
		return nil, err
	}
	opts := rules.Options{Severity: cfg.Severity}
	rep.Results = make([]result, len(omnia))
	errs := make([]error, len(omnia))
	parallel(len(omnia), workers, func(j int) {
		d := &docs[omnia[j]]
		rep.Results[j] = result{File: d.file, Document: d.index, Line: d.line, APIVersion: d.apiVersion, Kind: d.kind, Namespace: d.namespace, Name: d.name, UID: d.uid}
		var obj map[string]any
		if err := utiljson.Unmarshal(d.raw, &obj); err != nil {
			errs[j] = err
			return
		}
		d.raw = nil
		if cfg.PolicyApplied {
			rep.Results[j].Applied = appliedPolicyRules(cat, d.kind, obj, judged)
		}
		rep.Results[j].Findings, errs[j] = rules.Full(ctx, sv, cat, obj, nil, judged, opts)
	})
	var problems []string
	for j, err := range errs {
		if err != nil {
			r := rep.Results[j]
			problems = append(problems, fmt.Sprintf("%s: document %d (line %d): %v", r.File, r.Document, r.Line, err))
		}
	}
	if len(problems) > 0 {
		return nil, &inputError{msg: strings.Join(problems, "\n")}
	}
	rep.Results = mergeByPosition(docs, rep.Results, intentResults)
	return rep, nil
}

// appliedPolicyRules returns the IDs of the policy rules of cat that judge
// obj: of its kind, and selected by their policy. An object that does not
// decode is judged by none (its schema findings say why).
func appliedPolicyRules(cat *rules.Catalog, kind string, obj map[string]any, facts rules.Facts) []string {
	var typed runtime.Object
	var out []string
	for _, r := range cat.Rules() {
		if r.Source != rules.SourcePolicy || !slices.Contains(r.Kinds, kind) {
			continue
		}
		if typed == nil {
			var err error
			if typed, err = rules.Typed(obj); err != nil {
				return nil
			}
		}
		if r.Applies(kind, rules.Input{Object: typed, Facts: facts}) {
			out = append(out, r.ID)
		}
	}
	return out
}

// secretKeys returns a Secret's data and stringData keys; values are not
// looked at.
func secretKeys(obj map[string]any) []string {
	var keys []string
	for _, field := range []string{"data", "stringData"} {
		m, _ := obj[field].(map[string]any)
		for k := range m {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	return keys
}

// configMapData returns a ConfigMap's data and binaryData (base64, as the
// API takes it); a data key wins over the same binaryData key, which the API
// server refuses anyway.
func configMapData(obj map[string]any) (map[string][]byte, error) {
	out := map[string][]byte{}
	bin, _ := obj["binaryData"].(map[string]any)
	for k, v := range bin {
		str, _ := v.(string)
		b, err := base64.StdEncoding.DecodeString(str)
		if err != nil {
			return nil, fmt.Errorf("ConfigMap binaryData[%s] is not base64: %w", k, err)
		}
		out[k] = b
	}
	data, _ := obj["data"].(map[string]any)
	for k, v := range data {
		str, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("ConfigMap data[%s] is not a string", k)
		}
		out[k] = []byte(str)
	}
	return out, nil
}

// setNamespace gives a document without a namespace ns.
func setNamespace(obj map[string]any, ns string) {
	if ns == "" {
		return
	}
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		if obj["metadata"] != nil {
			return // the schema reports the bad metadata
		}
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	if cur, _ := meta["namespace"].(string); cur == "" {
		meta["namespace"] = ns
	}
}
