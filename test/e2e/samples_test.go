package e2e

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/altairalabs/omnia/test/controlplane"
	"github.com/altairalabs/omnia/test/e2e/framework"
)

// firstAgentFile is the sample the README starts a newcomer with.
const firstAgentFile = "config/samples/first-agent.yaml"

// applySample creates every document of the sample file in namespace ns,
// as `kubectl apply -n ns -f file` would, through the webhooks.
func applySample(ns, file string) {
	root, err := controlplane.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	data, err := os.ReadFile(filepath.Join(root, file))
	Expect(err).NotTo(HaveOccurred())
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	created := 0
	for {
		u := &unstructured.Unstructured{}
		err := dec.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			break
		}
		Expect(err).NotTo(HaveOccurred(), "%s: document %d", file, created+1)
		if len(u.Object) == 0 {
			continue
		}
		u.SetNamespace(ns)
		Expect(suite.Client.Create(context.Background(), u)).To(Succeed(), "%s: %s %s", file, u.GetKind(), u.GetName())
		created++
	}
	Expect(created).To(BeNumerically(">", 0), "%s holds no object", file)
}

var _ = Describe("The README's first agent (config/samples/first-agent.yaml)", func() {
	It("is admitted as written and runs, with nothing outside the cluster", func() {
		ns := framework.CreateNamespace(suite.Client, "e2e-first-agent")
		applySample(ns, firstAgentFile)
		waitAgentRunning(ns, "hello")
	})
})
