// Package framework is what the e2e suites under test/e2e share, so that
// each suite's files hold its scenarios and not another copy of the
// plumbing:
//
//   - the suite's lifecycle (suite.go, operator.go): a log directory, the
//     local cluster or API server, the operator binary as `make run` starts
//     it, a client, and one Stop that fails on a permission the generated
//     RBAC lacks and keeps the logs when anything failed;
//   - the components some suites add (redis.go, licence.go, warnings.go,
//     https.go): a private Redis, a licence key the operator trusts, the API
//     server's warnings, an HTTPS client for the operator's own listeners;
//   - the objects and waits many specs need (namespace.go, promptpack.go,
//     provider.go, conditions.go, wait.go).
//
// Ginkgo's BeforeSuite, AfterSuite and ReportAfterEach stay in each suite's
// suite_test.go, registered in the suite's own package; they call Start (or
// NewSuite and StartOperator), Stop and RecordSpecFailure. The helpers fail
// the running spec with Gomega, as the copies they replace did, and take
// the client explicitly so that a suite with no operator can use them too.
package framework
