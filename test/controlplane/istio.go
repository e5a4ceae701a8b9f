package controlplane

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// istioAPIModule is Istio's API module; hack/controlplane/istio/go.mod
// pins its version.
const istioAPIModule = "istio.io/api"

// IstioCRDFile returns Istio's generated CRD file (every istio.io kind,
// VirtualService and DestinationRule among them), read from the module
// cache: never copied into this repository.
func IstioCRDFile() (string, error) {
	root, err := ModuleDir("istio", istioAPIModule)
	if err != nil {
		return "", err
	}
	f := filepath.Join(root, "kubernetes", "customresourcedefinitions.gen.yaml")
	if _, err := os.Stat(f); err != nil {
		return "", fmt.Errorf("controlplane: Istio's CRDs: %w", err)
	}
	return f, nil
}

// InstallIstioCRDs installs Istio's CRDs and waits until they are served,
// so the operator can route a rollout through a VirtualService as in a
// cluster with Istio (no istiod runs: nothing acts on them).
func InstallIstioCRDs(cfg *rest.Config) error {
	f, err := IstioCRDFile()
	if err != nil {
		return err
	}
	if _, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{
		Paths:              []string{f},
		ErrorIfPathMissing: true,
		MaxTime:            time.Minute,
	}); err != nil {
		return fmt.Errorf("controlplane: installing Istio's CRDs: %w", err)
	}
	return nil
}
