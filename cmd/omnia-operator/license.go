package main

import (
	"flag"
	"fmt"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/licensing"
	"github.com/altairalabs/omnia/licensing/reload"
)

// The operator reads its licence from one Secret in its own namespace
// (arena-license, key license), listed and watched by name.
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch,namespace=omnia-system,resourceNames=arena-license

// licenseStore is the licence in force: the webhook's facts and every
// reconciler read it, the Secret watcher swaps it. Until the watcher has
// read the Secret it holds the open-core licence (and /readyz waits).
var licenseStore = licensing.NewStore()

// licenseFlags configure the licence check.
type licenseFlags struct {
	publicKeys []string
	namespace  string
	secret     string
	grace      time.Duration
}

var licenseOpts = licenseFlags{}

func init() {
	flag.Func("license-public-key",
		"PEM file of public keys licences are verified with (PUBLIC KEY or RSA PUBLIC KEY blocks; several blocks, or the flag repeated, "+
			"trust several keys, for rotation). No key: every licence is refused and the open-core licence applies",
		func(s string) error {
			licenseOpts.publicKeys = append(licenseOpts.publicKeys, s)
			return nil
		})
	flag.StringVar(&licenseOpts.namespace, "license-namespace", "", "namespace of the licence Secret (default: the operator's own namespace)")
	flag.StringVar(&licenseOpts.secret, "license-secret", reload.DefaultSecretName, "name of the licence Secret (key "+reload.DefaultSecretKey+")")
	flag.DurationVar(&licenseOpts.grace, "license-grace", licensing.DefaultGrace, "how long an expired licence still applies (with a Warning event) before the open-core licence does")
}

// setupLicense loads the trusted keys and adds the Secret watcher to the
// manager, with its readiness check. A key file that does not load stops
// the operator (a configuration error); a bad licence never does.
func setupLicense(mgr ctrl.Manager, defaultNamespace string) error {
	keys, err := licensing.LoadPublicKeyFiles(licenseOpts.publicKeys)
	if err != nil {
		return err
	}
	if licenseOpts.grace < 0 {
		return fmt.Errorf("--license-grace %s: must not be negative", licenseOpts.grace)
	}
	ns := licenseOpts.namespace
	if ns == "" {
		ns = defaultNamespace
	}
	w, err := reload.New(mgr.GetConfig(), reload.Options{
		Namespace:  ns,
		SecretName: licenseOpts.secret,
		Verifier:   licensing.NewVerifier(keys, licenseOpts.grace, nil),
		Store:      licenseStore,
		Recorder:   mgr.GetEventRecorder("omnia-licensing"),
		Log:        ctrl.Log.WithName("licensing"),
	})
	if err != nil {
		return err
	}
	if err := mgr.Add(w); err != nil {
		return err
	}
	return mgr.AddReadyzCheck("license", w.ReadyzCheck)
}
