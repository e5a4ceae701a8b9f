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
	"github.com/altairalabs/omnia/rules/schema"
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

// problem is one thing wrong with the --policy input, at a position (the
// document's sequence number in the input) so problems of every kind are
// reported in input order.
type problem struct {
	seq int
	msg string
}

// problemsError joins problems, in input order, into an *inputError.
func problemsError(ps []problem) error {
	if len(ps) == 0 {
		return nil
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].seq < ps[j].seq })
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = p.msg
	}
	return &inputError{msg: strings.Join(msgs, "\n")}
}

// readPolicyFiles reads the ValidationPolicy documents of paths (files, and
// directories searched recursively for *.yaml, *.yml and *.json, sorted, as
// -f reads them), judges each against the ValidationPolicy schema and
// returns the valid ones typed and defaulted, in input order, with the
// problems of the others: another kind, a schema-invalid policy, a second
// policy of one name. An unreadable path is an *inputError.
func readPolicyFiles(ctx context.Context, sv *schema.Validator, paths []string) ([]loadedPolicyDoc, []problem, error) {
	for _, p := range paths {
		if p == "-" {
			return nil, nil, inputErrorf("--policy reads files and directories, not stdin")
		}
	}
	sources, err := readSources(paths, nil)
	if err != nil {
		return nil, nil, err
	}
	chunks, err := splitSources(sources)
	if err != nil {
		return nil, nil, err
	}
	var (
		out      []loadedPolicyDoc
		problems []problem
		index    = map[string]int{}
		seen     = map[string]string{}
		count    int
	)
	for seq, c := range chunks {
		obj, err := parseChunk(c)
		if obj == nil && err == nil {
			continue // empty document
		}
		index[c.file]++
		count++
		doc := loadedPolicyDoc{seq: seq, file: c.file, document: index[c.file]}
		// Every problem of a policy names it as its compile errors do.
		where := fmt.Sprintf("%s: document %d", c.file, doc.document)
		if count > maxPolicyDocuments {
			return nil, nil, inputErrorf("%s: more than %d policy documents in --policy; give fewer files", where, maxPolicyDocuments)
		}
		if err != nil {
			problems = append(problems, problem{seq, where + ": " + err.Error()})
			continue
		}
		p, msgs, err := policyFromDocument(ctx, sv, obj)
		if err != nil {
			problems = append(problems, problem{seq, where + ": " + err.Error()})
			continue
		}
		for _, m := range msgs {
			problems = append(problems, problem{seq, fmt.Sprintf("%s: %s %s: %s", where, policyKind, p.Name, m)})
		}
		if len(msgs) > 0 {
			continue
		}
		if prev, dup := seen[p.Name]; dup {
			problems = append(problems, problem{seq, fmt.Sprintf("%s: %s %s is also defined at %s; a cluster holds one policy of a name", where, policyKind, p.Name, prev)})
			continue
		}
		seen[p.Name] = where
		doc.policy = p
		out = append(out, doc)
	}
	return out, problems, nil
}

// loadedPolicyDoc is a policy document read from a file, before compiling.
type loadedPolicyDoc struct {
	seq      int // position in the --policy input
	file     string
	document int
	policy   *v1alpha1.ValidationPolicy
}

// policyFromDocument judges one document as a ValidationPolicy: it must be
// one, and its own schema (OpenAPI, CEL, object metadata, unknown fields)
// must admit it as the API server would on create. It returns the policy as
// the API server would store it (defaulted: validationActions [Deny],
// severity deny), or the deny findings as "[rule] field: message" lines.
func policyFromDocument(ctx context.Context, sv *schema.Validator, obj map[string]any) (*v1alpha1.ValidationPolicy, []string, error) {
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
	res, err := sv.ValidateCreate(ctx, obj)
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

// compilePolicies compiles docs with env and returns them with a problem
// per compile error:
// "<file>: document N: ValidationPolicy <name>: [<rule ID>] <field>: <message>".
func compilePolicies(env *policies.Env, docs []loadedPolicyDoc) ([]loadedPolicy, []problem) {
	out := make([]loadedPolicy, 0, len(docs))
	var problems []problem
	for _, d := range docs {
		lp := loadedPolicy{file: d.file, document: d.document, compiled: env.Compile(d.policy)}
		for _, e := range lp.compiled.Errors {
			problems = append(problems, problem{d.seq, lp.where() + ": " + compileErrorText(e)})
		}
		out = append(out, lp)
	}
	return out, problems
}

// readAndCompilePolicies reads, judges and compiles the policies of paths.
// Any problem (an invalid policy, one that does not compile) is an
// *inputError listing them all, in input order.
func readAndCompilePolicies(ctx context.Context, sv *schema.Validator, paths []string) ([]loadedPolicy, error) {
	docs, problems, err := readPolicyFiles(ctx, sv, paths)
	if err != nil {
		return nil, err
	}
	env, err := newPolicyEnv()
	if err != nil {
		return nil, err
	}
	loaded, compileProblems := compilePolicies(env, docs)
	if err := problemsError(append(problems, compileProblems...)); err != nil {
		return nil, err
	}
	return loaded, nil
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
func loadPolicyCatalog(ctx context.Context, sv *schema.Validator, paths []string, severity map[string]rules.Severity) (*rules.Catalog, []loadedPolicy, error) {
	if len(paths) == 0 {
		cat, err := policyCatalog(nil, severity)
		return cat, nil, err
	}
	loaded, err := readAndCompilePolicies(ctx, sv, paths)
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
