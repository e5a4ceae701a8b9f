// Package arenasetup registers the Arena controllers (ArenaProject,
// ArenaRun, ArenaJob) with a manager, the way the operator does under
// --arena. The operator (cmd/omnia-operator, from its flags) and the
// scheduled-job e2e suite (test/e2e/arenaschedule, in-process with an
// injected clock) both call it, so the suite runs the operator's wiring,
// not a copy of it.
package arenasetup

import (
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/reconcile/arenajob"
	"github.com/altairalabs/omnia/reconcile/arenaproject"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source"
	"github.com/altairalabs/omnia/reconcile/arenarun"
	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/reconcile/policycheck"
	"github.com/altairalabs/omnia/rules"
)

// Config is what the Arena controllers share.
type Config struct {
	// Source is how project repositories are reached (the content root
	// --workspace-content-path, the credential hosts --arena-git-hosts, the
	// fetch bounds).
	// The ArenaProject controller and the ArenaRun controller's resolver
	// use the same.
	Source source.Config
	// Fetcher runs both controllers' fetches outside their reconciles
	// (--arena-git-fetch-*). Nil: each setup makes one with the default
	// bounds (Setup one for the three) and adds it to the manager.
	Fetcher *source.Fetcher
	// QueueRedisURL is the operator-wide arena queue, for runs whose
	// service group sets no redis (--arena-queue-redis-url[-file]).
	QueueRedisURL string
	// TenantCredentials gives each namespace its own user on QueueRedisURL
	// (--redis-tenant-credentials); nil: every namespace gets
	// QueueRedisURL itself.
	TenantCredentials arenarun.TenantCredentials
	// WorkerImage is the worker Job's image (--arena-worker-image).
	WorkerImage string
	// License is the licence in force (the operator's licence store).
	License rules.LicenseSource
	// JobClock is the ArenaJob controller's time (ticks). Nil: the real
	// clock, as in the operator; a test injects a fake one.
	JobClock clock.PassiveClock
	// Policies are the ValidationPolicies in force (the operator's
	// policies.Store), answered by the ArenaRun and ArenaJob controllers
	// with conditions. Nil: none.
	Policies policycheck.Policies
}

// SetupProject registers the ArenaProject controller: it finds each
// project's repository and sets Ready, status.defaultBranch and
// status.headCommit, so runs can wait for it and pin their commit.
func SetupProject(mgr ctrl.Manager, c Config) error {
	if err := c.withFetcher(mgr); err != nil {
		return err
	}
	return arenaproject.SetupWithManager(mgr, arenaproject.Options{Common: ctrlopts.Common{License: c.License}, Source: c.Source, Fetcher: c.Fetcher})
}

// withFetcher gives c a fetcher added to mgr when it has none.
func (c *Config) withFetcher(mgr ctrl.Manager) error {
	if c.Fetcher != nil {
		return nil
	}
	c.Fetcher = source.NewFetcher(source.FetcherOptions{})
	return mgr.Add(c.Fetcher)
}

// SetupRun registers the ArenaRun controller. Runs resolve their ref with
// the ArenaProject controller's go-git source (same Source config and
// fetcher), read their arena file and export the snapshot into the content
// volume, all in fetcher jobs.
func SetupRun(mgr ctrl.Manager, c Config) error {
	if err := c.withFetcher(mgr); err != nil {
		return err
	}
	resolver := arenarun.NewProjectResolver(c.Source, mgr.GetAPIReader(), c.Fetcher)
	return arenarun.SetupWithManager(mgr, arenarun.Options{
		Resolver:          resolver,
		SourceEvents:      resolver.Events(),
		DefaultRedisURL:   c.QueueRedisURL,
		TenantCredentials: c.TenantCredentials,
		WorkerImage:       c.WorkerImage,
		Common:            ctrlopts.Common{License: c.License},
		// Runs keep their default output on the workspace content volume
		// (arenajob.md § Without output).
		ContentRoot: c.Source.ContentRoot,
		Policies:    c.Policies,
	})
}

// SetupJob registers the ArenaJob controller: it creates a job's ArenaRuns
// (once, or on every cron tick), applies the concurrency policy, prunes the
// run history and writes the job's scheduling status.
func SetupJob(mgr ctrl.Manager, c Config) error {
	return arenajob.SetupWithManager(mgr, arenajob.Options{Common: ctrlopts.Common{License: c.License, Clock: c.JobClock}, Policies: c.Policies})
}

// Setup registers the three Arena controllers, sharing one fetcher.
func Setup(mgr ctrl.Manager, c Config) error {
	if err := c.withFetcher(mgr); err != nil {
		return err
	}
	for _, setup := range []func(ctrl.Manager, Config) error{SetupProject, SetupRun, SetupJob} {
		if err := setup(mgr, c); err != nil {
			return err
		}
	}
	return nil
}
