package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/policies"
	"github.com/altairalabs/omnia/rules"
)

// The ValidationPolicies omniactl applies offline (check --policy, audit
// --policy): read from files, judged against their own CRD schema exactly as
// the API server would judge them on create, compiled with the operator's
// compiler, and added to the built-in catalog. The same policy file works
// here and in the cluster.

// policyKind is the kind --policy files hold.
const policyKind = "ValidationPolicy"

// maxPolicyDocuments bounds the policies read from --policy paths: a
// directory of thousands of policies is a mistake, not a catalog.
const maxPolicyDocuments = 1000

// loadedPolicy is one ValidationPolicy read from a file, compiled.
type loadedPolicy struct {
	file     string
	document int
	compiled *policies.Compiled
}

// where names a policy document in messages.
func (p loadedPolicy) where() string {
	return fmt.Sprintf("%s: document %d: %s %s", p.file, p.document, policyKind, p.compiled.Name)
}

// readPolicyFiles reads the ValidationPolicy documents of paths (files, and
// directories searched recursively for *.yaml, *.yml and *.json, sorted, as
// -f reads them), judges each against the ValidationPolicy schema and
// returns them typed and defaulted, in input order. Any other document, a
// schema-invalid policy or two policies of one name are an *inputError
// naming the file and document.
func readPolicyFiles(ctx context.Context, sv *rules.SchemaValidator, paths []string) ([]loadedPolicyDoc, error) {
	for _, p := range paths {
		if p == "-" {
			return nil, inputErrorf("--policy reads files and directories, not stdin")
		}
	}
	sources, err := readSources(paths, nil)
	if err != nil {
		return nil, err
	}
	chunks, err := splitSources(sources)
	if err != nil {
		return nil, err
	}
	var (
		out      []loadedPolicyDoc
		problems []string
		index    = map[string]int{}
		seen     = map[string]string{}
	)
	for _, c := range chunks {
		obj, err := parseChunk(c)
		if err != nil {
			index[c.file]++
			problems = append(problems, fmt.Sprintf("%s: document %d (line %d): %v", c.file, index[c.file], c.line, err))
			continue
		}
		if obj == nil {
			continue // empty document
		}
		index[c.file]++
		doc := loadedPolicyDoc{file: c.file, document: index[c.file], line: c.line}
		where := fmt.Sprintf("%s: document %d (line %d)", c.file, doc.document, c.line)
		if len(out)+len(problems) >= maxPolicyDocuments {
			return nil, inputErrorf("%s: more than %d policy documents in --policy; give fewer files", where, maxPolicyDocuments)
		}
		p, msgs, err := policyFromDocument(ctx, sv, obj)
		if err != nil {
			problems = append(problems, where+": "+err.Error())
			continue
		}
		if len(msgs) > 0 {
			for _, m := range msgs {
				problems = append(problems, fmt.Sprintf("%s: %s %s: %s", where, policyKind, p.Name, m))
			}
			continue
		}
		if prev, dup := seen[p.Name]; dup {
			problems = append(problems, fmt.Sprintf("%s: %s %s is also defined at %s; a cluster holds one policy of a name", where, policyKind, p.Name, prev))
			continue
		}
		seen[p.Name] = where
		doc.policy = p
		out = append(out, doc)
	}
	if len(problems) > 0 {
		return nil, &inputError{msg: strings.Join(problems, "\n")}
	}
	return out, nil
}

// loadedPolicyDoc is a policy document read from a file, before compiling.
type loadedPolicyDoc struct {
	file     string
	document int
	line     int
	policy   *v1alpha1.ValidationPolicy
}

// policyFromDocument judges one document as a ValidationPolicy: it must be
// one, and its own schema (OpenAPI, CEL, object metadata, unknown fields)
// must admit it as the API server would on create. It returns the policy as
// the API server would store it (defaulted: validationActions [Deny],
// severity deny), or the deny findings as "[rule] field: message" lines.
func policyFromDocument(ctx context.Context, sv *rules.SchemaValidator, obj map[string]any) (*v1alpha1.ValidationPolicy, []string, error) {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	if apiVersion != v1alpha1.GroupVersion.String() || kind != policyKind {
		if apiVersion == "" || kind == "" {
			return nil, nil, fmt.Errorf("no apiVersion or kind: --policy takes %s/%s documents", v1alpha1.GroupVersion, policyKind)
		}
		return nil, nil, fmt.Errorf("%s %s is not a %s/%s: --policy takes only policies (check other manifests with -f)", apiVersion, kind, v1alpha1.GroupVersion, policyKind)
	}
	_, name := metaNames(obj)
	findings, err := rules.Full(ctx, sv, rules.Default, obj, nil, rules.NoFacts{}, rules.Options{})
	if err != nil {
		return nil, nil, err
	}
	var msgs []string
	for _, f := range findings {
		if f.Severity == rules.SeverityDeny {
			msgs = append(msgs, f.String())
		}
	}
	if len(msgs) > 0 {
		return &v1alpha1.ValidationPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}}, msgs, nil
	}
	res, err := sv.Validate(ctx, obj, nil)
	if err != nil {
		return nil, nil, err
	}
	typed, err := rules.Typed(res.Object)
	if err != nil {
		return nil, nil, err
	}
	p, ok := typed.(*v1alpha1.ValidationPolicy)
	if !ok {
		return nil, nil, fmt.Errorf("decoded as %T, not a %s", typed, policyKind)
	}
	return p, nil, nil
}

// compilePolicies compiles docs with env. A policy that does not compile
// is an *inputError with one line per compile error:
// "<file>: document N: ValidationPolicy <name>: [<rule ID>] <field>: <message>".
func compilePolicies(env *policies.Env, docs []loadedPolicyDoc) ([]loadedPolicy, error) {
	out := make([]loadedPolicy, 0, len(docs))
	var problems []string
	for _, d := range docs {
		lp := loadedPolicy{file: d.file, document: d.document, compiled: env.Compile(d.policy)}
		for _, e := range lp.compiled.Errors {
			problems = append(problems, lp.where()+": "+compileErrorText(e))
		}
		out = append(out, lp)
	}
	if len(problems) > 0 {
		return nil, &inputError{msg: strings.Join(problems, "\n")}
	}
	return out, nil
}

// compileErrorText renders a compile error as a finding is rendered.
func compileErrorText(e v1alpha1.ValidationPolicyRuleError) string {
	rule := e.Rule
	if rule == "" {
		rule = "policy"
	}
	return "[" + rule + "] " + e.Field + ": " + e.Message
}

// policyCatalog is the built-in catalog with the rules of compiled, through
// a policies.Store as the operator builds it. Severity overrides of policy
// rules must name a rule of compiled: an override of nothing would be
// silently ignored.
func policyCatalog(compiled []*policies.Compiled, severity map[string]rules.Severity) (*rules.Catalog, error) {
	store := policies.NewStore(rules.Default)
	for _, c := range compiled {
		if err := store.Set(c); err != nil {
			return nil, inputErrorf("%s %s: %v", policyKind, c.Name, err)
		}
	}
	cat := store.Catalog()
	var unknown []string
	for id := range severity {
		if !strings.HasPrefix(id, rules.PolicyRulePrefix) {
			continue
		}
		if _, ok := cat.Lookup(id); !ok {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, inputErrorf("--rule-severity names policy rules no policy defines: %s (policies in force: %s)",
			strings.Join(unknown, ", "), orNone(store.Policies()))
	}
	return cat, nil
}

// newPolicyEnv builds the compilation environment once per command.
func newPolicyEnv() (*policies.Env, error) {
	env, err := policies.NewEnv(policies.Options{})
	if err != nil {
		return nil, fmt.Errorf("building the policy compiler: %w", err)
	}
	return env, nil
}

// loadPolicyCatalog reads, judges and compiles the policies of paths and
// returns the catalog they make with the built-in rules, and the compiled
// policies. No paths: the built-in catalog.
func loadPolicyCatalog(ctx context.Context, sv *rules.SchemaValidator, paths []string, severity map[string]rules.Severity) (*rules.Catalog, []loadedPolicy, error) {
	if len(paths) == 0 {
		cat, err := policyCatalog(nil, severity)
		return cat, nil, err
	}
	docs, err := readPolicyFiles(ctx, sv, paths)
	if err != nil {
		return nil, nil, err
	}
	env, err := newPolicyEnv()
	if err != nil {
		return nil, nil, err
	}
	loaded, err := compilePolicies(env, docs)
	if err != nil {
		return nil, nil, err
	}
	compiled := make([]*policies.Compiled, len(loaded))
	for i, lp := range loaded {
		compiled[i] = lp.compiled
	}
	cat, err := policyCatalog(compiled, severity)
	return cat, loaded, err
}
