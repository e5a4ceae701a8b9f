package controlplane

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// gatewayAPIModule is the Gateway API's Go module;
// hack/controlplane/gateway-api/go.mod pins its version (the one the main
// go.mod requires for the typed API).
const gatewayAPIModule = "sigs.k8s.io/gateway-api"

// GatewayAPICRDFiles returns the Gateway API's standard-channel CRD files
// (GatewayClass, Gateway, HTTPRoute, GRPCRoute, ReferenceGrant, ...), read
// from the module cache. The directory also holds a
// ValidatingAdmissionPolicy (…_vap_safeupgrades.yaml), which is not a CRD
// and is left out.
func GatewayAPICRDFiles() ([]string, error) {
	files, err := moduleCRDFiles("gateway-api", gatewayAPIModule, filepath.Join("config", "crd", "standard"), "gateway.networking.k8s.io_", "Gateway API")
	if err != nil {
		return nil, err
	}
	out := files[:0]
	for _, f := range files {
		if !strings.Contains(filepath.Base(f), "_vap_") {
			out = append(out, f)
		}
	}
	return out, nil
}

// InstallGatewayAPICRDs installs the Gateway API's CRDs and waits until they
// are served, so the operator can create HTTPRoutes as in a cluster with a
// Gateway implementation installed. No Gateway controller runs: nothing
// accepts a route, and a test that needs an accepted route writes the
// route's status.parents itself, playing the third-party controller.
func InstallGatewayAPICRDs(cfg *rest.Config) error {
	files, err := GatewayAPICRDFiles()
	if err != nil {
		return err
	}
	if _, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{
		Paths:              files,
		ErrorIfPathMissing: true,
		MaxTime:            time.Minute,
	}); err != nil {
		return fmt.Errorf("controlplane: installing the Gateway API's CRDs: %w", err)
	}
	return nil
}

// WithGatewayAPIOperatorCluster is WithOperatorCluster with the Gateway
// API's CRDs installed before the operator starts (the operator looks for
// the HTTPRoute kind once, at startup).
func WithGatewayAPIOperatorCluster(opts Options, dir string, args ...string) (*Cluster, *Operator, error) {
	var cluster *Cluster
	op, err := withOperator(opts, dir, args, func(opts Options) (*envtest.Environment, func() error, error) {
		var err error
		cluster, err = StartCluster(opts, dir)
		if err != nil {
			return nil, nil, err
		}
		if err := InstallGatewayAPICRDs(cluster.Environment.Config); err != nil {
			_ = cluster.Stop()
			return nil, nil, err
		}
		return cluster.Environment, cluster.Stop, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return cluster, op, nil
}
