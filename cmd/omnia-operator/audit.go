package main

import (
	"flag"
	"fmt"
	"time"

	openreportsv1alpha1 "github.com/openreports/reports-api/apis/openreports.io/v1alpha1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/altairalabs/omnia/reconcile/audit"
)

// auditFlags are the background audit's flags.
type auditFlags struct {
	interval   time.Duration
	maxObjects int
}

func (f *auditFlags) bind(fs *flag.FlagSet) {
	fs.DurationVar(&f.interval, "audit-interval", audit.DefaultInterval,
		"how often the background audit judges every Omnia object with the catalog in force and writes OpenReports "+
			"(one Report per namespace, one ClusterReport, all named omnia-audit); it also runs on policy changes. 0 disables the audit")
	fs.IntVar(&f.maxObjects, "audit-max-objects", audit.DefaultMaxObjects,
		"objects one audit judges at most; beyond it the audit stops, logs and writes no report (omnia_audit_runs_total{outcome=\"too_many_objects\"})")
}

// setupAudit adds the background audit to the manager (it runs on the
// leader). It judges with the catalog in force (op.policies) and runs
// again shortly after any policy change. --audit-interval=0 adds nothing.
func setupAudit(mgr ctrl.Manager, op *operator) error {
	f := op.flags.audit
	if f.interval <= 0 {
		ctrl.Log.WithName("audit").Info("background audit disabled (--audit-interval=0)")
		return nil
	}
	// Reports are read and written uncached through a client of their
	// own: the audit reads them once per run, and the manager's scheme
	// and cache need not know the OpenReports kinds (the CRDs may be
	// absent).
	scheme := runtime.NewScheme()
	if err := openreportsv1alpha1.Install(scheme); err != nil {
		return err
	}
	reportsClient, err := client.New(mgr.GetConfig(), client.Options{Scheme: scheme, Mapper: mgr.GetRESTMapper(), HTTPClient: mgr.GetHTTPClient()})
	if err != nil {
		return fmt.Errorf("audit: the reports client: %w", err)
	}
	a, err := audit.New(audit.Options{
		Reader:     mgr.GetClient(),
		Secrets:    mgr.GetAPIReader(),
		Reports:    reportsClient,
		Mapper:     mgr.GetRESTMapper(),
		License:    op.license,
		Catalog:    op.policies.Catalog,
		Changes:    op.policies.Changes,
		Interval:   f.interval,
		MaxObjects: f.maxObjects,
		Metrics:    audit.NewMetrics(metrics.Registry),
		Log:        ctrl.Log.WithName("audit"),
	})
	if err != nil {
		return err
	}
	return mgr.Add(a)
}
