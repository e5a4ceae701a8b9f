// Package reload keeps the operator's licence current: it watches the
// licence Secret (arena-license, key license, in the operator's namespace),
// verifies each version with licensing.Verifier and swaps the result into a
// licensing.Store that the webhook and every reconciler read. A change takes
// effect without a restart; a bad or missing licence never stops the
// operator — the open-core licence applies, with an Event on the Secret and
// a log line saying why (never the token).
package reload

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"

	"github.com/altairalabs/omnia/licensing"
)

// Defaults of the Secret the licence is installed in.
const (
	DefaultSecretName = "arena-license"
	DefaultSecretKey  = "license"
)

// Event reasons recorded on the licence Secret.
const (
	ReasonLicenseVerified = "LicenseVerified"
	ReasonLicenseInGrace  = "LicenseInGrace"
	ReasonLicenseRefused  = "LicenseRefused"
	ReasonLicenseRemoved  = "LicenseRemoved"
)

// DefaultRecheck is how often the Secret is re-verified unchanged, so an
// expiry (and the end of the grace period) takes effect without a write.
const DefaultRecheck = 10 * time.Minute

// Options configure a Watcher.
type Options struct {
	// Namespace is the operator's own namespace.
	Namespace string
	// SecretName and Key default to arena-license and license.
	SecretName, Key string
	// Verifier checks the token; Store receives the result.
	Verifier *licensing.Verifier
	Store    *licensing.Store
	// Recorder (events.k8s.io) records Events on the Secret; nil records none.
	Recorder events.EventRecorder
	Log      logr.Logger
	// Recheck is the informer's resync period (DefaultRecheck when 0).
	Recheck time.Duration
}

// Watcher is a manager Runnable that runs on every replica (each serves
// webhooks, so each needs the licence), leader or not.
type Watcher struct {
	opts   Options
	client kubernetes.Interface
	synced atomic.Bool
	// last is the summary of the last state stored, so Events and log lines
	// mark changes, not every resync.
	last atomic.Pointer[string]
}

// New returns a watcher reading through cfg.
func New(cfg *rest.Config, opts Options) (*Watcher, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return NewWithClient(cs, opts)
}

// NewWithClient returns a watcher reading through c.
func NewWithClient(c kubernetes.Interface, opts Options) (*Watcher, error) {
	if opts.Namespace == "" {
		return nil, errors.New("licence watcher: the operator's namespace is empty")
	}
	if opts.Verifier == nil || opts.Store == nil {
		return nil, errors.New("licence watcher: a verifier and a store are required")
	}
	if opts.SecretName == "" {
		opts.SecretName = DefaultSecretName
	}
	if opts.Key == "" {
		opts.Key = DefaultSecretKey
	}
	if opts.Recheck == 0 {
		opts.Recheck = DefaultRecheck
	}
	return &Watcher{opts: opts, client: c}, nil
}

// NeedLeaderElection implements manager.LeaderElectionRunnable: every
// replica watches.
func (w *Watcher) NeedLeaderElection() bool { return false }

// Start watches the one Secret until ctx ends. The list and watch carry a
// metadata.name field selector, so the operator's Role may name the Secret
// (resourceNames) and no other Secret's data is read.
func (w *Watcher) Start(ctx context.Context) error {
	factory := informers.NewSharedInformerFactoryWithOptions(w.client, w.opts.Recheck,
		informers.WithNamespace(w.opts.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", w.opts.SecretName).String()
		}))
	inf := factory.Core().V1().Secrets().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { w.observe(obj) },
		UpdateFunc: func(_, obj any) { w.observe(obj) },
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			s, _ := obj.(*corev1.Secret)
			w.apply(s, true)
		},
	}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return ctx.Err()
	}
	// A Secret that does not exist produced no event: say so once.
	if len(inf.GetStore().List()) == 0 {
		w.apply(nil, false)
	}
	w.synced.Store(true)
	<-ctx.Done()
	factory.Shutdown()
	return nil
}

func (w *Watcher) observe(obj any) {
	s, ok := obj.(*corev1.Secret)
	if !ok || s.Name != w.opts.SecretName {
		return
	}
	w.apply(s, false)
}

// apply verifies the Secret's token (s nil or deleted: no licence) and
// stores the result.
func (w *Watcher) apply(s *corev1.Secret, deleted bool) {
	token := ""
	notInstalled := "no licence installed (Secret " + w.opts.Namespace + "/" + w.opts.SecretName + " not found)"
	if s != nil && !deleted {
		token = string(s.Data[w.opts.Key])
		if token == "" {
			notInstalled = "Secret " + w.opts.Namespace + "/" + w.opts.SecretName + " has no key " + w.opts.Key
		}
	}
	st := w.opts.Verifier.StateOf(token, notInstalled)
	w.opts.Store.Set(st)
	w.report(s, st, deleted, token != "")
}

// report logs and records an Event when the state changed.
func (w *Watcher) report(s *corev1.Secret, st licensing.State, deleted, present bool) {
	summary := fmt.Sprintf("%v/%v/%s/%s/%s", st.Verified, st.InGrace, st.License.ID, st.License.ExpiresAt, st.Reason)
	if prev := w.last.Swap(&summary); prev != nil && *prev == summary {
		return
	}
	log := w.opts.Log
	l := st.License
	switch {
	case st.Verified && st.InGrace:
		msg := fmt.Sprintf("licence %s of %s expired at %s and is in its grace period of %s: renew it before the open-core licence applies",
			l.ID, l.Customer, l.ExpiresAt.Format(time.RFC3339), w.opts.Verifier.Grace())
		log.Info("licence in grace period", "lid", l.ID, "customer", l.Customer, "expired", l.ExpiresAt)
		w.event(s, corev1.EventTypeWarning, ReasonLicenseInGrace, msg)
	case st.Verified:
		log.Info("licence verified", "lid", l.ID, "customer", l.Customer, "tier", l.Tier, "features", l.FeatureList(),
			"maxScenarios", l.MaxScenarios(), "maxWorkerReplicas", l.MaxWorkerReplicas(), "expires", l.ExpiresAt)
		w.event(s, corev1.EventTypeNormal, ReasonLicenseVerified, fmt.Sprintf("licence %s of %s (%s) verified; features %v; expires %s",
			l.ID, l.Customer, l.Tier, l.FeatureList(), l.ExpiresAt.Format(time.RFC3339)))
	case present:
		log.Info("licence refused; the open-core licence applies", "reason", st.Reason)
		w.event(s, corev1.EventTypeWarning, ReasonLicenseRefused, "licence refused, the open-core licence applies: "+st.Reason)
	case deleted:
		log.Info("licence Secret deleted; the open-core licence applies")
		w.event(s, corev1.EventTypeNormal, ReasonLicenseRemoved, "licence Secret deleted: the open-core licence applies")
	default:
		log.Info("the open-core licence applies", "reason", st.Reason)
		if s != nil {
			w.event(s, corev1.EventTypeWarning, ReasonLicenseRefused, st.Reason+": the open-core licence applies")
		}
	}
}

func (w *Watcher) event(s *corev1.Secret, typ, reason, note string) {
	if w.opts.Recorder == nil || s == nil {
		return
	}
	w.opts.Recorder.Eventf(s, nil, typ, reason, "VerifyLicense", "%s", note)
}

// Synced reports whether the first list of the Secret has been applied.
func (w *Watcher) Synced() bool { return w.synced.Load() }

// ReadyzCheck is a healthz.Checker: not ready until the licence Secret has
// been read once, so the webhook never judges with a licence it has not
// loaded yet.
func (w *Watcher) ReadyzCheck(*http.Request) error {
	if !w.Synced() {
		return errors.New("the licence Secret has not been read yet")
	}
	return nil
}
