package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/altairalabs/omnia/test/controlplane"
)

// What controller-runtime logs (JSON lines) when a replica campaigns for
// the Lease, wins it and starts a controller.
const (
	logAcquired   = `"msg":"Successfully acquired lease"`
	logCampaigns  = `"msg":"Attempting to acquire leader lease..."`
	logController = `"msg":"Starting Controller"`
)

// TestFailover runs two replicas with leader election (on by default): while
// both run only the Lease holder runs the controllers; when it is killed
// (SIGKILL: no release, the Lease has to expire) the other takes the Lease
// and reconciles a new object within the lease duration plus 10 seconds.
// Then the same after a graceful stop (SIGTERM) of the new leader.
func TestFailover(t *testing.T) {
	needsAPIServer(t)
	const leaseDuration = 6 * time.Second
	args := []string{
		"--leader-elect-lease-duration=" + leaseDuration.String(),
		"--leader-elect-renew-deadline=4s",
		"--leader-elect-retry-period=1s",
	}
	if LeaderElectionID != controlplane.LeaseName {
		t.Fatalf("LeaderElectionID %q, controlplane.LeaseName %q", LeaderElectionID, controlplane.LeaseName)
	}
	certs := env.WebhookInstallOptions.LocalServingCertDir

	a := launch(t, "operator-a", certs, args...)
	if err := a.WaitReady(time.Minute); err != nil {
		t.Fatal(err)
	}
	var holder string
	eventually(t, time.Minute, "operator-a takes the Lease", func() error {
		if !strings.Contains(operatorLog(t, a), logAcquired) {
			return errors.New("operator-a has not acquired the Lease")
		}
		var err error
		holder, err = leaseHolder()
		return err
	})

	b := launch(t, "operator-b", certs, args...)
	if err := b.WaitReady(time.Minute); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "operator-b campaigns for the Lease", func() error {
		if !strings.Contains(operatorLog(t, b), logCampaigns) {
			return errors.New("operator-b has not tried the Lease")
		}
		return nil
	})

	ns := namespace(t)
	mockProvider(t, ns, "before-failover")
	eventually(t, 30*time.Second, "the leader reconciles a Provider", func() error { return hasStatus(ns, "before-failover") })

	// While both run, only operator-a leads and runs controllers.
	if h, err := leaseHolder(); err != nil || h != holder {
		t.Errorf("Lease holder %q (err %v) changed while operator-a ran; was %q", h, err, holder)
	}
	if !strings.Contains(operatorLog(t, a), logController) {
		t.Error("the leader did not start its controllers")
	}
	if log := operatorLog(t, b); strings.Contains(log, logAcquired) || startsLeaderController(log) {
		t.Fatal("operator-b acquired the Lease or started controllers while operator-a led")
	}

	a.Kill()
	mockProvider(t, ns, "after-failover")
	eventually(t, leaseDuration+10*time.Second, "operator-b reconciles a new Provider after the leader died", func() error {
		return hasStatus(ns, "after-failover")
	})
	if !strings.Contains(operatorLog(t, b), logAcquired) {
		t.Error("operator-b reconciled without acquiring the Lease")
	}
	h, err := leaseHolder()
	if err != nil || h == holder {
		t.Errorf("Lease holder %q (err %v), want operator-b, not the dead %q", h, err, holder)
	}
	t.Logf("the Lease moved from %s to %s", holder, h)

	// A graceful stop (SIGTERM, as on a rollout or drain) hands the Lease
	// back, so the next replica need not wait for it to expire.
	c := launch(t, "operator-c", certs, args...)
	if err := c.WaitReady(time.Minute); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "operator-c campaigns for the Lease", func() error {
		if !strings.Contains(operatorLog(t, c), logCampaigns) {
			return errors.New("operator-c has not tried the Lease")
		}
		return nil
	})
	b.Stop()
	mockProvider(t, ns, "after-handover")
	eventually(t, leaseDuration+10*time.Second, "operator-c reconciles a new Provider after the leader stopped", func() error {
		return hasStatus(ns, "after-handover")
	})
	if !strings.Contains(operatorLog(t, c), logAcquired) {
		t.Error("operator-c reconciled without acquiring the Lease")
	}
}

// everyReplicaController is the one controller every replica runs: the
// policy loader, which keeps each replica's webhook catalog in step with the
// cluster's ValidationPolicies (reconcile/validationpolicy).
const everyReplicaController = `"controller":"validationpolicy-store"`

// startsLeaderController reports whether log shows a controller starting
// other than the one every replica runs.
func startsLeaderController(log string) bool {
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, logController) && !strings.Contains(line, everyReplicaController) {
			return true
		}
	}
	return false
}
