// Package namespaced runs the namespace-scoped install (config/namespaced,
// docs/install.md § Namespace-scoped install) end to end: the operator
// binary with --watch-namespaces=team-a,team-b, as its ServiceAccount with
// exactly the roles and bindings `kubectl kustomize config/namespaced`
// gives, against a real API server with the webhooks registered over TLS.
//
// Why a suite of its own: the grants and the flag are install-wide, and
// the test/e2e suite's operator runs with config/default's.
package namespaced

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/altairalabs/omnia/test/controlplane"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

// The namespaces config/namespaced watches, and one it does not.
const (
	watchedA  = "team-a"
	watchedB  = "team-b"
	unwatched = "team-c"
)

var suite *framework.Suite

func TestNamespaced(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Omnia namespace-scoped install e2e")
}

var _ = ReportAfterEach(framework.RecordSpecFailure)

var _ = BeforeSuite(func() {
	suite = framework.Start("namespaced", framework.OperatorOptions{
		ControlPlane: controlplane.Options{OperatorRBAC: "config/namespaced"},
		Args:         []string{"--watch-namespaces=" + watchedA + "," + watchedB},
	})
})

// Stop fails on any request the API server refused the operator: an
// informer or read outside its grants shows here.
var _ = AfterSuite(func() { suite.Stop() })
