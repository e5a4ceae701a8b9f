package main

import (
	"errors"
	"flag"
	"os"
	"strings"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/cmd/omnia-operator/arenasetup"
	"github.com/altairalabs/omnia/reconcile/arenarun"
)

// arenaRunFlags are the ArenaRun controller's settings.
type arenaRunFlags struct {
	// queueRedisURL is the operator-wide arena queue (status.queue source
	// Default): --arena-queue-redis-url-file (a mounted Secret, the way to
	// give it in a cluster) or --arena-queue-redis-url (local use).
	queueRedisURL     string
	queueRedisURLFile string
	workerImage       string
}

func (f *arenaRunFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&f.queueRedisURL, "arena-queue-redis-url", "",
		"redis:// URL of the operator-wide Arena work queue, used by runs whose service group sets no redis (prefer --arena-queue-redis-url-file: a flag is visible in the pod spec)")
	fs.StringVar(&f.queueRedisURLFile, "arena-queue-redis-url-file", "",
		"file holding the redis:// URL of the operator-wide Arena work queue (e.g. a mounted Secret key)")
	fs.StringVar(&f.workerImage, "arena-worker-image", arenarun.DefaultWorkerImage, "image of the Arena worker Job's pods")
}

func setupArenaRun(mgr ctrl.Manager, op *operator) error {
	if !op.flags.arena.enabled {
		return nil
	}
	f := op.flags.arena.run
	url := f.queueRedisURL
	if f.queueRedisURLFile != "" {
		b, err := os.ReadFile(f.queueRedisURLFile)
		if err != nil {
			// The path is not secret; the content is never printed.
			return errors.New("reading --arena-queue-redis-url-file " + f.queueRedisURLFile + ": " + err.Error())
		}
		url = strings.TrimSpace(string(b))
	}
	c := op.arenaConfig()
	var err error
	if c.Fetcher, err = op.arenaFetcher(mgr); err != nil {
		return err
	}
	c.QueueRedisURL = url
	if url != "" {
		p, err := op.flags.redisTenant.tenantProvisioner(mgr, "omnia-operator-arena-acl")
		if err != nil {
			return err
		}
		if p != nil {
			c.TenantCredentials = p
		}
	}
	c.Policies = op.policies
	return arenasetup.SetupRun(mgr, c)
}
