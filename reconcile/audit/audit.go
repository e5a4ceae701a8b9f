// Package audit is the operator's background audit: on an interval and
// whenever the policies in force change, it judges every live Omnia object
// of the kinds the webhooks validate with the whole catalog (schema, Go and
// policy rules, every stage, with cluster facts from the manager's cache)
// and writes the verdicts as OpenReports — one Report per namespace and one
// ClusterReport, built by policies/reports. It writes only the reports whose
// content changed, deletes the reports of namespaces that no longer hold
// Omnia objects, and runs on the elected leader only.
//
// Where the OpenReports CRDs are not installed, it still audits (the
// metrics say what it found) and writes nothing.
package audit

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/altairalabs/omnia/rules"
)

// Defaults of Options.
const (
	DefaultInterval   = 10 * time.Minute
	DefaultDebounce   = 2 * time.Second
	DefaultMaxObjects = 50000
)

// Options configure an Auditor.
type Options struct {
	// Reader lists the audited objects and answers the rules' facts: the
	// manager's cached client.
	Reader client.Reader
	// Secrets reads Secrets and ConfigMaps for the facts (the manager's
	// uncached APIReader); nil reads them through Reader.
	Secrets client.Reader
	// Reports reads and writes the reports, uncached (the audit reads them
	// once per run; a cache would watch every Report in the cluster). Its
	// scheme must hold openreports.io/v1alpha1.
	Reports client.Client
	// Mapper tells whether the OpenReports CRDs are installed.
	Mapper meta.RESTMapper
	// License is the licence source the facts read.
	License rules.LicenseSource
	// Catalog returns the catalog in force (policies.Store.Catalog); nil
	// means rules.Default.
	Catalog func() *rules.Catalog
	// Changes returns a channel closed at the next change of the catalog
	// (policies.Store.Changes); nil means the catalog never changes.
	Changes func() <-chan struct{}
	// Trigger, when set, runs an audit on each receive (tests, and a
	// future "audit now" hook).
	Trigger <-chan struct{}
	// Interval between audits; 0 runs none on a timer (the operator does
	// not start the Auditor at all for --audit-interval=0).
	Interval time.Duration
	// Debounce is how long after a policy change the audit waits, so a
	// burst of policy edits makes one audit; 0 means DefaultDebounce.
	Debounce time.Duration
	// MaxObjects bounds one audit; beyond it the audit stops and writes
	// nothing. 0 means DefaultMaxObjects.
	MaxObjects int
	// MaxResults caps each report's results; 0 means
	// reports.DefaultMaxResults.
	MaxResults int
	// Metrics, when set, records each audit.
	Metrics *Metrics
	// Log is the audit's logger.
	Log logr.Logger
}

// Auditor is the background audit, a manager Runnable.
type Auditor struct {
	opts Options
	// mu serialises audits (Start's loop and a direct Run).
	mu sync.Mutex
	// reportsServedLast remembers whether the last audit found the
	// OpenReports CRDs, so their absence is logged once, not every audit.
	reportsServedLast *bool
}

var (
	_ manager.Runnable               = (*Auditor)(nil)
	_ manager.LeaderElectionRunnable = (*Auditor)(nil)
)

// New returns an Auditor.
func New(opts Options) (*Auditor, error) {
	if opts.Reader == nil || opts.Reports == nil || opts.Mapper == nil {
		return nil, errors.New("audit: Reader, Reports and Mapper are required")
	}
	if opts.Catalog == nil {
		opts.Catalog = func() *rules.Catalog { return rules.Default }
	}
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.MaxObjects <= 0 {
		opts.MaxObjects = DefaultMaxObjects
	}
	if opts.Secrets == nil {
		opts.Secrets = opts.Reader
	}
	return &Auditor{opts: opts}, nil
}

// NeedLeaderElection implements manager.LeaderElectionRunnable: one replica
// audits and writes the reports.
func (a *Auditor) NeedLeaderElection() bool { return true }

// Start audits once at once, then on each tick of the interval, each
// trigger and each (debounced) policy change, until ctx ends. A failed
// audit is logged and counted; the next one retries.
func (a *Auditor) Start(ctx context.Context) error {
	var tick <-chan time.Time
	if a.opts.Interval > 0 {
		t := time.NewTicker(a.opts.Interval)
		defer t.Stop()
		tick = t.C
	}
	changes := a.changes()
	// The debounce timer starts at the first change of a burst and is not
	// pushed back by the next ones: a steady stream of edits still gets
	// an audit every Debounce.
	var debounce <-chan time.Time
	for due := true; ; {
		if due {
			if _, err := a.Run(ctx); err != nil && ctx.Err() == nil {
				a.opts.Log.Error(err, "audit failed; the next one retries")
			}
			due = false
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick:
			due = true
		case <-a.opts.Trigger:
			due = true
		case <-changes:
			changes = a.changes()
			if debounce == nil {
				debounce = time.After(a.opts.Debounce)
			}
		case <-debounce:
			debounce = nil
			due = true
		}
	}
}

// changes is the channel of the next catalog change; nil (never ready)
// without a Changes func.
func (a *Auditor) changes() <-chan struct{} {
	if a.opts.Changes == nil {
		return nil
	}
	return a.opts.Changes()
}
