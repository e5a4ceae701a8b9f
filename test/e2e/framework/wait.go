package framework

import (
	"context"
	"time"

	"github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Generous bounds for what the operator and the cluster's controllers do
// asynchronously: seconds normally, more on a shared, loaded machine. A
// wait that times out fails the spec, so a short bound only makes a slow
// machine look like a bug.
const (
	Timeout = 2 * time.Minute
	Poll    = 250 * time.Millisecond
)

// WaitFor re-reads obj (its namespace and name set) from c until check
// passes on it, within Timeout; description says what was awaited when it
// never does. obj holds the object as last read.
func WaitFor[T client.Object](c client.Client, obj T, check func(g gomega.Gomega, obj T), description ...any) {
	key := client.ObjectKeyFromObject(obj)
	gomega.Eventually(func(g gomega.Gomega) {
		g.Expect(c.Get(context.Background(), key, obj)).To(gomega.Succeed())
		check(g, obj)
	}).WithTimeout(Timeout).WithPolling(Poll).Should(gomega.Succeed(), description...)
}
