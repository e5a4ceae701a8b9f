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
	return moduleCRDFiles("keda", kedaModule, filepath.Join("config", "crd", "bases"), "keda.sh_", "KEDA")
}

// moduleCRDFiles returns the CRD files named prefix*.yaml under dir of
// module, read from the module cache (ModuleDir with the scratch module
// that pins it): third-party CRDs are installed from their own module,
// never copied into this repository.
func moduleCRDFiles(scratch, module, dir, prefix, what string) ([]string, error) {
	root, err := ModuleDir(scratch, module)
	if err != nil {
		return nil, err
	}
	crdDir := filepath.Join(root, dir)
	entries, err := os.ReadDir(crdDir)
	if err != nil {
		return nil, fmt.Errorf("controlplane: %s's CRDs: %w", what, err)
	}
	var files []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) && strings.HasSuffix(e.Name(), ".yaml") {
			files = append(files, filepath.Join(crdDir, e.Name()))
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("controlplane: no %s CRDs (%s*.yaml) under %s", what, prefix, crdDir)
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
