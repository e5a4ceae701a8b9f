// Command omniactl checks Omnia manifests offline with the same rule catalog
// the API server's schema, the validating webhooks and the reconcilers use,
// and documents that catalog.
//
//	omniactl check -f PATH… [-o table|json|sarif|junit] [--rule-severity ID=deny|warn]… [--namespace NS] [--policy FILE|DIR]…
//	omniactl audit [--kubeconfig FILE] [--context NAME] [-n NS | -A] [-o …] [--policy FILE|DIR]… [--report] (audit.go)
//	omniactl rules [-o table|json|markdown]
//	omniactl license inspect FILE [--public-key PEM]… [-o text|json]
//	omniactl deploy apply|plan … (a client of the operator's deploy API; deploy.go)
//	omniactl client-key mint --agent A --namespace N … (an agent's client key Secret; clientkey.go)
//
// check exits 0 when nothing is denied, 1 when something is, and 2 when the
// input is unusable (a file that cannot be read, YAML or JSON that does not
// parse, a document without apiVersion or kind, an Omnia apiVersion with an
// unknown kind, a --policy file that is no valid ValidationPolicy or does
// not compile). audit exits the same way, 2 also on a cluster error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/altairalabs/omnia/rules"
)

// Exit codes.
const (
	exitOK     = 0
	exitDenied = 1
	exitInput  = 2
)

// tuneGC is set by main: the binary tunes its garbage collector for the
// check (see tuneMemory); tests calling run leave theirs alone.
var tuneGC = false

func main() {
	tuneGC = true
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `omniactl checks Omnia manifests offline against the rule catalog.

Usage:
  omniactl check -f PATH… [-o table|json|sarif|junit] [--rule-severity ID=deny|warn]… [--namespace NS]
                 [--policy FILE|DIR]… [--license FILE --license-public-key PEM…] [--exposure-base-domain DOMAIN]
  omniactl audit [--kubeconfig FILE] [--context NAME] [-n NAMESPACE | -A] [-o table|json|sarif|junit]
                 [--policy FILE|DIR]… [--rule-severity ID=deny|warn]… [--license FILE …] [--report]
                 [--exposure-base-domain DOMAIN]
  omniactl rules [-o table|json|markdown]
  omniactl license inspect FILE [--public-key PEM]… [-o text|json]
  omniactl deploy apply -f INTENT.json --server URL --workspace NAME --token-file FILE [--ca-file PEM] [-o table|json]
  omniactl deploy plan (-f ARENA.yaml | --deploy-config CONFIG.json) --server URL --workspace NAME --token-file FILE …
  omniactl client-key mint --agent NAME --namespace NS [--id ID] [--scopes JSON] [--expires-at RFC3339] [--agent-uid UID] [--create]

deploy is a client of the operator's deploy API ("omniactl deploy" for its
help); it exits 0 when everything applied, 1 on a partial apply or a
refusal, 2 on unusable input.

check reads files, directories (recursively: *.yaml, *.yml, *.json) and "-"
(stdin), each possibly holding several YAML documents. Provider, PromptPack,
Workspace, ToolPolicy, ConfigMap and Secret documents (keys only) are facts
for the others; every Omnia document is evaluated with the schema (OpenAPI and CEL, as
the API server runs it) and every Go rule, admission and reconcile stage.
A deploy intent (apiVersion deploy.omnia.altairalabs.ai/v1) is decoded and
judged by the deployintent/* rules, as the operator's deploy API judges it.
Namespace documents are facts too (their labels, for a policy's
namespaceSelector). Other documents are skipped. The licence the rules see is
the open-core one, or the --license file, verified with --license-public-key
as the operator verifies the arena-license Secret. --exposure-base-domain is
the operator's own: with it, an expose.host outside <namespace>.<DOMAIN> and
the Workspace's spec.exposure.allowedHostSuffixes is denied
(agentruntime/expose-host-outside-namespace-domain), as the operator's webhook
denies it; without it that rule reports nothing, as with exposure off.

--policy FILE|DIR (repeatable; a directory is searched recursively for
*.yaml, *.yml and *.json, as -f) reads ValidationPolicy documents, judges
each against its CRD schema, compiles it as the operator does and adds its
rules (policy/<policy>/<rule>) to the catalog every document is judged with;
--rule-severity applies to them. A policy that is invalid or does not compile
is unusable input, naming the file, document, rule and field. A policy given
with -f instead is only checked against its schema, not applied.

audit judges a live cluster's Omnia objects the same way, with the cluster's
facts and policies ("omniactl audit -h" for its help).

Exit status: 0 nothing denied, 1 something denied, 2 unusable input.
`

// run is omniactl with its arguments and streams; it returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitInput
	}
	switch args[0] {
	case "check":
		return runCheck(ctx, args[1:], stdin, stdout, stderr)
	case "rules":
		return runRules(args[1:], stdout, stderr)
	case "license":
		return runLicense(args[1:], stdout, stderr)
	case "audit":
		return runAudit(ctx, args[1:], stdout, stderr)
	case "deploy":
		return runDeploy(ctx, args[1:], stdout, stderr)
	case "client-key":
		return runClientKey(ctx, args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "omniactl: unknown command %q\n\n%s", args[0], usage)
	return exitInput
}

// pathsFlag collects repeated -f values.
type pathsFlag []string

func (p *pathsFlag) String() string     { return strings.Join(*p, ",") }
func (p *pathsFlag) Set(v string) error { *p = append(*p, v); return nil }

// parseInterleaved parses flags that may come after positional arguments
// (omniactl check a.yaml -o json) and returns the positionals.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if rest[0] == "--" {
			return append(positional, rest[1:]...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

func runCheck(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("omniactl check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		paths      pathsFlag
		format     string
		namespace  string
		severities = rules.SeverityOverrides{}
		lic        licenseCheckFlags
		policyArgs pathsFlag
		podLevel   string
		podClasses string
		exposure   exposureFlag
	)
	lic.bind(fs)
	exposure.bind(fs)
	fs.StringVar(&podLevel, "pod-security-level", rules.DefaultPodSecurityLevel, "the operator's Pod Security floor agent pods are judged at (privileged, baseline or restricted; as the operator's flag)")
	fs.StringVar(&podClasses, "agent-runtime-classes", "", "comma-separated RuntimeClasses agents may name in podOverrides.runtimeClassName (as the operator's flag); empty: any")
	fs.Var(&paths, "f", "file, directory (recursive: *.yaml, *.yml, *.json) or - for stdin; repeatable")
	fs.Var(&policyArgs, "policy", "ValidationPolicy file or directory (recursive: *.yaml, *.yml, *.json) whose rules join the catalog; repeatable")
	fs.StringVar(&format, "o", formatTable, "output: table, json, sarif or junit")
	fs.StringVar(&namespace, "namespace", "", "namespace for namespaced documents that name none (as kubectl apply -n)")
	fs.StringVar(&namespace, "n", "", "shorthand for --namespace")
	fs.Var(severities, "rule-severity", "set a rule's severity: <rule-id>=deny|warn; repeatable")
	positional, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitInput
	}
	paths = append(paths, positional...)
	if len(paths) == 0 {
		fmt.Fprintln(stderr, "omniactl check: no input; give -f PATH (a file, a directory or - for stdin)")
		return exitInput
	}
	switch format {
	case formatTable, formatJSON, formatSARIF, formatJUnit:
	default:
		fmt.Fprintf(stderr, "omniactl check: unknown output format %q (want table, json, sarif or junit)\n", format)
		return exitInput
	}

	license, err := lic.license(stderr)
	if err != nil {
		fmt.Fprintln(stderr, "omniactl check: --license:", err)
		return exitInput
	}
	podSecurity, err := rules.ParsePodSecuritySettings(podLevel, podClasses)
	if err != nil {
		fmt.Fprintln(stderr, "omniactl check:", err)
		return exitInput
	}
	baseDomain, err := exposure.baseDomain()
	if err != nil {
		fmt.Fprintln(stderr, "omniactl check:", err)
		return exitInput
	}
	rep, err := check(ctx, paths, stdin, checkConfig{Namespace: namespace, Severity: severities, TuneMemory: tuneGC, License: license,
		PolicyPaths: policyArgs, PodSecurity: podSecurity, ExposureBaseDomain: baseDomain})
	if err != nil {
		var ie *inputError
		if errors.As(err, &ie) {
			fmt.Fprintln(stderr, "omniactl check: unusable input:\n"+indent(ie.msg))
			return exitInput
		}
		fmt.Fprintln(stderr, "omniactl check:", err)
		return exitInput
	}
	if err := writeReport(stdout, rep, format); err != nil {
		fmt.Fprintln(stderr, "omniactl check:", err)
		return exitInput
	}
	if format == formatTable {
		fmt.Fprintln(stderr, summary(rep))
	}
	if rep.denied() {
		return exitDenied
	}
	return exitOK
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
