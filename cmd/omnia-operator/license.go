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

// licenseFlags configure the licence check.
type licenseFlags struct {
	publicKeys []string
	namespace  string
	secret     string
	grace      time.Duration
}

func (f *licenseFlags) bind(fs *flag.FlagSet) {
	fs.Func("license-public-key",
		"PEM file of public keys licences are verified with (PUBLIC KEY or RSA PUBLIC KEY blocks; several blocks, or the flag repeated, "+
			"trust several keys, for rotation). No key: every licence is refused and the open-core licence applies",
		func(s string) error {
			f.publicKeys = append(f.publicKeys, s)
			return nil
		})
	fs.StringVar(&f.namespace, "license-namespace", "", "namespace of the licence Secret (default: the operator's own namespace)")
	fs.StringVar(&f.secret, "license-secret", reload.DefaultSecretName, "name of the licence Secret (key "+reload.DefaultSecretKey+")")
	fs.DurationVar(&f.grace, "license-grace", licensing.DefaultGrace, "how long an expired licence still applies (with a Warning event) before the open-core licence does")
}

// setupLicense loads the trusted keys and adds the Secret watcher, which
// keeps op.license current, to the manager, with its readiness check. The
// Secret is in --license-namespace, else in the operator's own namespace.
// A key file that does not load stops the operator (a configuration
// error); a bad licence never does.
func setupLicense(mgr ctrl.Manager, op *operator) error {
	f := op.flags.license
	keys, err := licensing.LoadPublicKeyFiles(f.publicKeys)
	if err != nil {
		return err
	}
	if f.grace < 0 {
		return fmt.Errorf("--license-grace %s: must not be negative", f.grace)
	}
	ns := f.namespace
	if ns == "" {
		ns = ownNamespace()
	}
	w, err := reload.New(mgr.GetConfig(), reload.Options{
		Namespace:  ns,
		SecretName: f.secret,
		Verifier:   licensing.NewVerifier(keys, f.grace, nil),
		Store:      op.license,
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
