package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	goruntime "runtime"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/policies"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/rules/schema"
)

// omniactl audit judges the Omnia objects of a live cluster exactly as
// omniactl check judges manifests: each listed object becomes the document
// check would build from its manifest (status and server-set metadata
// stripped, so the schema judges its spec as a create), the facts come from
// the cluster, and the catalog is the built-in rules plus the cluster's
// ValidationPolicies (and any --policy files).

const auditUsage = `Usage:
  omniactl audit [--kubeconfig FILE] [--context NAME] [-n NAMESPACE | -A]
                 [-o table|json|sarif|junit] [--policy FILE|DIR]… [--rule-severity ID=deny|warn]…
                 [--license FILE --license-public-key PEM…] [--report] [--max-objects N]
                 [--exposure-base-domain DOMAIN]

Lists every Omnia object in the namespace (default: the context's) or in all
namespaces (-A), and judges each with the whole catalog — the schema (OpenAPI
and CEL, as the API server runs it), every Go rule of both stages, and the
rules of the cluster's ValidationPolicies and of any --policy files (a file's
policy replaces the cluster's policy of the same name) — with facts read from
the cluster: Namespaces, Secrets (keys only: values are dropped as they are
read and never printed), PersistentVolumeClaims, the ConfigMaps PromptPacks
name, and the CRDs the API server serves. A cluster policy that does not
compile is reported on stderr and not applied.

Output is check's: "file" is cluster:<context>, the object namespace/name.
--report also writes OpenReports to the cluster: a Report omnia-audit per
namespace and a ClusterReport omnia-audit, as the operator's background audit
names them, each only when its content changed.

Exit status: 0 nothing denied, 1 something denied, 2 unusable input or a
cluster error.
`

// defaultMaxObjects bounds each list an audit makes.
const defaultMaxObjects = 50000

// requestTimeout bounds each request to the API server.
const requestTimeout = 30 * time.Second

// auditFlags are omniactl audit's flags.
type auditFlags struct {
	kubeconfig, context, namespace string
	all                            bool
	format                         string
	policyPaths                    pathsFlag
	severity                       rules.SeverityOverrides
	lic                            licenseCheckFlags
	exposure                       exposureFlag
	report                         bool
	maxObjects                     int
}

func runAudit(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("omniactl audit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, auditUsage) }
	f := auditFlags{severity: rules.SeverityOverrides{}}
	f.lic.bind(fs)
	f.exposure.bind(fs)
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&f.context, "context", "", "kubeconfig context (default: the current context)")
	fs.StringVar(&f.namespace, "namespace", "", "namespace to audit (default: the context's)")
	fs.StringVar(&f.namespace, "n", "", "shorthand for --namespace")
	fs.BoolVar(&f.all, "all-namespaces", false, "audit every namespace")
	fs.BoolVar(&f.all, "A", false, "shorthand for --all-namespaces")
	fs.StringVar(&f.format, "o", formatTable, "output: table, json, sarif or junit")
	fs.Var(&f.policyPaths, "policy", "extra ValidationPolicy file or directory (recursive) applied with the cluster's; repeatable")
	fs.Var(f.severity, "rule-severity", "set a rule's severity: <rule-id>=deny|warn; repeatable")
	fs.BoolVar(&f.report, "report", false, "write OpenReports (Report omnia-audit per namespace, ClusterReport omnia-audit) to the cluster")
	fs.IntVar(&f.maxObjects, "max-objects", defaultMaxObjects, "most objects of one list (Omnia objects together, each fact kind alone) the audit reads")
	positional, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitInput
	}
	if len(positional) > 0 {
		fmt.Fprintf(stderr, "omniactl audit: unexpected arguments %q\n\n%s", positional, auditUsage)
		return exitInput
	}
	switch f.format {
	case formatTable, formatJSON, formatSARIF, formatJUnit:
	default:
		fmt.Fprintf(stderr, "omniactl audit: unknown output format %q (want table, json, sarif or junit)\n", f.format)
		return exitInput
	}
	if _, err := f.exposure.baseDomain(); err != nil {
		fmt.Fprintln(stderr, "omniactl audit:", err)
		return exitInput
	}
	if f.all && f.namespace != "" {
		fmt.Fprintln(stderr, "omniactl audit: give -n NAMESPACE or -A, not both")
		return exitInput
	}
	if f.maxObjects <= 0 {
		fmt.Fprintln(stderr, "omniactl audit: --max-objects must be positive")
		return exitInput
	}
	license, err := f.lic.license(stderr)
	if err != nil {
		fmt.Fprintln(stderr, "omniactl audit: --license:", err)
		return exitInput
	}

	rep, err := audit(ctx, f, license, stdout, stderr)
	if err != nil {
		var ie *inputError
		if errors.As(err, &ie) {
			fmt.Fprintln(stderr, "omniactl audit: unusable input:\n"+indent(ie.msg))
		} else {
			fmt.Fprintln(stderr, "omniactl audit:", err)
		}
		return exitInput
	}
	if rep.denied() {
		return exitDenied
	}
	return exitOK
}

// connection is a cluster to audit, from a kubeconfig.
type connection struct {
	config    *rest.Config
	context   string // the context's name, or the server's URL without one
	namespace string // the context's namespace
}

// connect loads the kubeconfig as kubectl does.
func connect(kubeconfig, contextName string) (*connection, error) {
	loading := clientcmd.NewDefaultClientConfigLoadingRules()
	loading.ExplicitPath = kubeconfig
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(loading, &clientcmd.ConfigOverrides{CurrentContext: contextName})
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	cfg.Timeout = requestTimeout
	raw, err := cc.RawConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	name := contextName
	if name == "" {
		name = raw.CurrentContext
	}
	if name == "" {
		name = cfg.Host
	}
	ns, _, err := cc.Namespace()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	return &connection{config: cfg, context: name, namespace: ns}, nil
}

// audit reads the cluster, judges every Omnia object in scope, writes the
// report in f.format to stdout and, with --report, the OpenReports to the
// cluster.
func audit(ctx context.Context, f auditFlags, license rules.License, stdout, stderr io.Writer) (*report, error) {
	conn, err := connect(f.kubeconfig, f.context)
	if err != nil {
		return nil, err
	}
	scope := auditScope{namespace: f.namespace, all: f.all}
	if !scope.all && scope.namespace == "" {
		scope.namespace = conn.namespace
	}
	dyn, err := dynamic.NewForConfig(conn.config)
	if err != nil {
		return nil, err
	}
	disc, err := discovery.NewDiscoveryClientForConfig(conn.config)
	if err != nil {
		return nil, err
	}
	reader := &clusterReader{dyn: dyn, disc: disc, max: f.maxObjects, source: "cluster:" + conn.context, stderr: stderr}

	// Build the validators while the cluster is read.
	var (
		sv     *schema.Validator
		svErr  error
		svDone = make(chan struct{})
	)
	go func() { sv, svErr = schema.Default(); close(svDone) }()

	kinds, groupKinds, err := reader.discover()
	if err != nil {
		return nil, err
	}
	omnia, clusterPolicies, err := reader.readOmnia(ctx, kinds, scope)
	if err != nil {
		return nil, err
	}
	facts, err := reader.readFacts(ctx, scope, omnia)
	if err != nil {
		return nil, err
	}
	docs := append(append(omnia, facts...), reader.crdDocuments(groupKinds)...)
	n := 0
	for i := range docs {
		if docs[i].class == classOmnia && !docs[i].factOnly {
			n++
			docs[i].index = n
		}
	}

	<-svDone
	if svErr != nil {
		return nil, fmt.Errorf("building the schema validators: %w", svErr)
	}
	cat, inForce, err := auditCatalog(ctx, sv, clusterPolicies, f.policyPaths, f.severity, stderr)
	if err != nil {
		return nil, err
	}
	baseDomain, err := f.exposure.baseDomain()
	if err != nil {
		return nil, err
	}
	cfg := checkConfig{Severity: f.severity, License: license, Catalog: cat, PolicyApplied: f.report, ExposureBaseDomain: baseDomain}
	rep, err := evaluate(ctx, sv, docs, cfg, goruntime.GOMAXPROCS(0))
	if err != nil {
		return nil, err
	}
	if err := writeReport(stdout, rep, f.format); err != nil {
		return nil, err
	}
	if f.format == formatTable {
		fmt.Fprintln(stderr, auditSummary(rep, scope, conn.context))
	}
	if f.report {
		if err := writeClusterReports(ctx, dyn, rep, inForce, scope, stderr); err != nil {
			return nil, fmt.Errorf("--report: %w", err)
		}
	}
	return rep, nil
}

// auditSummary is the closing line of the table output.
func auditSummary(rep *report, scope auditScope, context string) string {
	deny, warn := rep.counts()
	return fmt.Sprintf("%d Omnia object(s) audited in %s of %s (%d fact(s)): %d denied, %d warning(s)",
		len(rep.Results), scope, context, rep.Facts, deny, warn)
}

// policyState is one policy the audit saw: compiled (in force) or not.
type policyState struct {
	name string
	// source is "cluster" or the --policy file and document.
	source   string
	uid      types.UID // a cluster policy's
	compiled *policies.Compiled
}

// auditCatalog compiles the cluster's policies and the --policy files
// (which replace a cluster policy of the same name) and returns the catalog
// they make with the built-in rules, and every policy's state. A cluster
// policy that does not compile is reported on stderr and left out; a
// --policy file that does not compile, or is not a valid policy, is
// unusable input.
func auditCatalog(ctx context.Context, sv *schema.Validator, cluster []*v1alpha1.ValidationPolicy, paths []string, severity map[string]rules.Severity, stderr io.Writer) (*rules.Catalog, []policyState, error) {
	var files []loadedPolicy
	if len(paths) > 0 {
		var err error
		if files, err = readAndCompilePolicies(ctx, sv, paths); err != nil {
			return nil, nil, err
		}
	}
	fromFile := map[string]bool{}
	var states []policyState
	for _, lp := range files {
		fromFile[lp.compiled.Name] = true
		states = append(states, policyState{name: lp.compiled.Name, source: fmt.Sprintf("%s: document %d", lp.file, lp.document), compiled: lp.compiled})
	}
	if len(cluster) > 0 {
		env, err := newPolicyEnv()
		if err != nil {
			return nil, nil, err
		}
		for _, p := range cluster {
			if fromFile[p.Name] {
				fmt.Fprintf(stderr, "omniactl audit: note: %s %s from --policy replaces the cluster's\n", policyKind, p.Name)
				continue
			}
			c := env.Compile(p)
			if len(c.Errors) > 0 {
				lines := make([]string, len(c.Errors))
				for i, e := range c.Errors {
					lines[i] = compileErrorText(e)
				}
				fmt.Fprintf(stderr, "omniactl audit: %s %s does not compile; its rules are not applied:\n%s\n", policyKind, p.Name, indent(strings.Join(lines, "\n")))
			}
			states = append(states, policyState{name: p.Name, source: "cluster", uid: p.UID, compiled: c})
		}
	}
	sort.Slice(states, func(i, j int) bool { return states[i].name < states[j].name })
	store := policies.NewStore(rules.Default)
	for _, s := range states {
		if len(s.compiled.Errors) > 0 {
			continue
		}
		if err := store.Set(s.compiled); err != nil {
			// Rules that cannot join the catalog (a malformed ID): the
			// policy is reported and left out, as one that does not compile.
			fmt.Fprintf(stderr, "omniactl audit: %s %s cannot join the catalog (%v); not applied\n", policyKind, s.name, err)
			s.compiled.Errors = append(s.compiled.Errors, v1alpha1.ValidationPolicyRuleError{Field: "spec.rules", Message: err.Error()})
		}
	}
	cat := store.Catalog()
	for id := range severity {
		if _, ok := cat.Lookup(id); !ok && strings.HasPrefix(id, rules.PolicyRulePrefix) {
			fmt.Fprintf(stderr, "omniactl audit: warning: --rule-severity %s names no policy rule in force (policies in force: %s)\n", id, orNone(store.Policies()))
		}
	}
	return cat, states, nil
}
