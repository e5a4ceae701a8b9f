package controlplane

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// openReportsModule is the OpenReports API module; hack/controlplane/
// openreports/go.mod pins the version the operator's go.mod requires.
const openReportsModule = "github.com/openreports/reports-api"

// OpenReportsCRDNames are the CRDs OpenReportsCRDFiles installs.
var OpenReportsCRDNames = []string{"reports.openreports.io", "clusterreports.openreports.io"}

// OpenReportsCRDFiles returns the OpenReports CRD files (Report,
// ClusterReport), read from the module cache.
func OpenReportsCRDFiles() ([]string, error) {
	return moduleCRDFiles("openreports", openReportsModule, filepath.Join("config", "crd"), "openreports.io_", "OpenReports")
}

// InstallOpenReportsCRDs installs the OpenReports CRDs and waits until they
// are served, so the operator's background audit writes its reports as in a
// cluster where OpenReports is installed.
func InstallOpenReportsCRDs(cfg *rest.Config) error {
	files, err := OpenReportsCRDFiles()
	if err != nil {
		return err
	}
	if _, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{
		Paths:              files,
		ErrorIfPathMissing: true,
		MaxTime:            time.Minute,
	}); err != nil {
		return fmt.Errorf("controlplane: installing the OpenReports CRDs: %w", err)
	}
	return nil
}

// UninstallOpenReportsCRDs deletes the OpenReports CRDs and waits until they
// are gone: a test of a cluster without OpenReports.
func UninstallOpenReportsCRDs(ctx context.Context, cfg *rest.Config) error {
	scheme := runtime.NewScheme()
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		return err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	for _, name := range OpenReportsCRDNames {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		crd.Name = name
		if err := c.Delete(ctx, crd); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("controlplane: deleting CRD %s: %w", name, err)
		}
	}
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		for _, name := range OpenReportsCRDNames {
			err := c.Get(ctx, client.ObjectKey{Name: name}, &apiextensionsv1.CustomResourceDefinition{})
			if !apierrors.IsNotFound(err) {
				return false, nil
			}
		}
		return true, nil
	})
}
