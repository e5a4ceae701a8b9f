package main

import (
	"flag"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/altairalabs/omnia/rules"
)

// exposureFlag is --exposure-base-domain: the operator's own
// --exposure-base-domain, an operator setting no manifest carries. The rule
// agentruntime/expose-host-outside-namespace-domain judges expose.host
// against <namespace>.<domain> (and the Workspace's grants among the
// documents); without the flag it reports nothing, as an operator with
// exposure off does.
type exposureFlag struct{ domain string }

func (e *exposureFlag) bind(fs *flag.FlagSet) {
	fs.StringVar(&e.domain, "exposure-base-domain", "",
		"the operator's --exposure-base-domain: expose.host must be under <namespace>.<domain> or a domain the Workspace grants; "+
			"empty: not judged (exposure off)")
}

// baseDomain checks the flag as the operator does (a DNS subdomain) and
// returns it as the facts hold it.
func (e *exposureFlag) baseDomain() (string, error) {
	if e.domain == "" {
		return "", nil
	}
	if errs := validation.IsDNS1123Subdomain(e.domain); len(errs) > 0 {
		return "", fmt.Errorf("--exposure-base-domain %q: %v", e.domain, errs)
	}
	return rules.NormalizeExposeHost(e.domain), nil
}
