package controlplane

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// kedaModule is KEDA's Go module; hack/controlplane/keda/go.mod pins its
// version.
const kedaModule = "github.com/kedacore/keda/v2"

// KEDACRDFiles returns KEDA's own CRD files for the keda.sh group
// (ScaledObject, ScaledJob, TriggerAuthentication,
// ClusterTriggerAuthentication), read from the module cache.
func KEDACRDFiles() ([]string, error) {
	dir, err := ModuleDir("keda", kedaModule)
	if err != nil {
		return nil, err
	}
	bases := filepath.Join(dir, "config", "crd", "bases")
	entries, err := os.ReadDir(bases)
	if err != nil {
		return nil, fmt.Errorf("controlplane: KEDA's CRDs: %w", err)
	}
	var files []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "keda.sh_") && strings.HasSuffix(e.Name(), ".yaml") {
			files = append(files, filepath.Join(bases, e.Name()))
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("controlplane: no keda.sh CRDs under %s", bases)
	}
	return files, nil
}

// InstallKEDACRDs installs KEDA's CRDs and waits until they are served, so
// the operator can create ScaledObjects as in a cluster where KEDA is
// installed (no KEDA operator runs: nothing acts on them).
func InstallKEDACRDs(cfg *rest.Config) error {
	files, err := KEDACRDFiles()
	if err != nil {
		return err
	}
	if _, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{
		Paths:              files,
		ErrorIfPathMissing: true,
		MaxTime:            time.Minute,
	}); err != nil {
		return fmt.Errorf("controlplane: installing KEDA's CRDs: %w", err)
	}
	return nil
}
