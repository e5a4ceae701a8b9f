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

// The ArenaRun controller's settings.
var (
	// arenaQueueRedisURL is the operator-wide arena queue (status.queue
	// source Default): --arena-queue-redis-url-file (a mounted Secret, the
	// way to give it in a cluster) or --arena-queue-redis-url (local use).
	arenaQueueRedisURL     string
	arenaQueueRedisURLFile string
	arenaWorkerImage       string
)

func init() {
	flag.StringVar(&arenaQueueRedisURL, "arena-queue-redis-url", "",
		"redis:// URL of the operator-wide Arena work queue, used by runs whose service group sets no redis (prefer --arena-queue-redis-url-file: a flag is visible in the pod spec)")
	flag.StringVar(&arenaQueueRedisURLFile, "arena-queue-redis-url-file", "",
		"file holding the redis:// URL of the operator-wide Arena work queue (e.g. a mounted Secret key)")
	flag.StringVar(&arenaWorkerImage, "arena-worker-image", arenarun.DefaultWorkerImage, "image of the Arena worker Job's pods")
}

func setupArenaRun(mgr ctrl.Manager) error {
	if !*arenaEnabled {
		return nil
	}
	url := arenaQueueRedisURL
	if arenaQueueRedisURLFile != "" {
		b, err := os.ReadFile(arenaQueueRedisURLFile)
		if err != nil {
			// The path is not secret; the content is never printed.
			return errors.New("reading --arena-queue-redis-url-file " + arenaQueueRedisURLFile + ": " + err.Error())
		}
		url = strings.TrimSpace(string(b))
	}
	c := arenaConfig()
	var err error
	if c.Fetcher, err = arenaFetcher(mgr); err != nil {
		return err
	}
	c.QueueRedisURL = url
	if url != "" {
		p, err := tenantProvisioner(mgr, "omnia-operator-arena-acl")
		if err != nil {
			return err
		}
		if p != nil {
			c.TenantCredentials = p
		}
	}
	c.Policies = controllerPolicies
	return arenasetup.SetupRun(mgr, c)
}
