package main

import (
	"errors"
	"flag"
	"os"
	"strings"

	ctrl "sigs.k8s.io/controller-runtime"

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

	controllerSetups = append(controllerSetups, func(mgr ctrl.Manager) error {
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
		return arenarun.SetupWithManager(mgr, arenarun.Options{
			// Runs resolve their ref with the ArenaProject controller's
			// go-git source (same --workspace-content-path and
			// --arena-allow-http-git), read their arena file and export
			// the snapshot into the content volume.
			Resolver:        arenarun.NewProjectResolver(arenaSourceConfig(), mgr.GetAPIReader()),
			DefaultRedisURL: url,
			WorkerImage:     arenaWorkerImage,
			License:         licenseStore,
			// Runs keep their default output on the workspace content
			// volume (arenajob.md § Without output).
			ContentRoot: *workspaceContentPath,
		})
	})
}
