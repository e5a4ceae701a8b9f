package main

import (
	"flag"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/cmd/omnia-operator/arenasetup"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source"
	"github.com/altairalabs/omnia/rules"
)

// The enterprise Arena switch and the Arena controllers' shared settings.
// The Arena controllers (ArenaProject, ArenaJob, ArenaRun) are an
// enterprise feature and run only when --arena is set, as the app chart's
// enterprise.enabled (arenajob.md, top note). Without it the Arena CRDs are
// still installed and the webhook still judges Arena objects, but nothing
// reconciles them: an ArenaJob is admitted and left alone. `make run` sets
// it.
var (
	arenaEnabled = flag.Bool("arena", false, "run the Arena controllers (enterprise)")

	// workspaceContentPath is where the workspace content volume is
	// mounted in the operator: <path>/<namespace>/ is a workspace's content
	// subtree, a hosted ArenaProject's repository is
	// arena/sources/<project> in it (arenajob.md names this flag).
	workspaceContentPath = flag.String("workspace-content-path", "",
		"mount of the workspace content volume; a hosted ArenaProject's git repository is <path>/<namespace>/arena/sources/<project>. "+
			"Empty: hosted projects are Failed (ContentRootNotSet) and runs write their output to scratch space")

	// The bounds of the Arena git fetches (reconcile/arenaproject/source:
	// fetcher.go, packindex.go; docs/arena.md § Fetches).
	arenaGitFetchDir = flag.String("arena-git-fetch-dir", "",
		"directory the Arena git fetches write into (one fresh directory per fetch, removed after; at most --arena-git-fetch-workers of them at once). Empty: the system temporary directory")
	arenaGitMaxFetchBytes = flag.Int64("arena-git-max-fetch-bytes", source.DefaultMaxFetchBytes,
		"bytes one Arena git fetch may read from the server (refs and pack), and the pack it may write to disk")
	arenaGitMaxObjects = flag.Int("arena-git-max-objects", source.DefaultMaxObjects,
		"objects one fetched pack may hold, checked from its header before any is read")
	arenaGitMaxObjectBytes = flag.Int64("arena-git-max-object-bytes", source.DefaultMaxObjectBytes,
		"largest object the operator holds whole in memory (a commit, tree or tag, a delta's base or result), checked from the pack's declared sizes before it is inflated; whole blobs are streamed and bounded by the snapshot cap instead")
	arenaGitMaxInflatedBytes = flag.Int64("arena-git-max-inflated-bytes", source.DefaultMaxInflatedBytes,
		"sum of the inflated sizes of every object of one fetched pack")
	arenaGitFetchWorkers = flag.Int("arena-git-fetch-workers", source.DefaultFetchWorkers,
		"operator-wide cap on Arena git fetches (and snapshot exports) running at once, outside the reconcile workers")
	arenaGitFetchPerHost = flag.Int("arena-git-fetch-per-host", source.DefaultFetchPerHost,
		"cap on Arena git fetches running against one host:port")
	arenaGitFetchPerNamespace = flag.Int("arena-git-fetch-per-namespace", source.DefaultFetchPerNamespace,
		"cap on Arena git fetches running for the projects of one namespace")
	arenaGitFetchQueue = flag.Int("arena-git-fetch-queue", source.DefaultFetchQueueSize,
		"Arena git fetches that may wait; beyond it a project says Fetching and asks again at its next requeue")
	arenaGitFetchNamespaceQueue = flag.Int("arena-git-fetch-namespace-queue", source.DefaultFetchNamespaceQueue,
		"Arena git fetches of one namespace that may wait, so one tenant cannot fill the queue")
)

// arenaGitHosts are the hosts an external ArenaProject's spec.git.secretRef
// credentials may be sent to (--arena-git-hosts, repeatable and
// comma-separated; canonical host:port). Empty, the default: none, so a
// project with a secretRef is Failed (CredentialsHostNotAllowed) and its
// Secret is not read.
var arenaGitHosts []string

func init() {
	flag.Func("arena-git-hosts",
		"comma-separated host or host:port list (host alone means port 443; repeatable) to which an external ArenaProject's "+
			"spec.git.secretRef credentials may be sent over https; default none: a project with a secretRef to any other URL "+
			"is Failed (CredentialsHostNotAllowed) and its Secret is not read",
		func(s string) error {
			hosts, err := rules.ParseCredentialHosts(s)
			arenaGitHosts = append(arenaGitHosts, hosts...)
			return err
		})
}

// sharedArenaFetcher is the one fetcher of the ArenaProject and ArenaRun
// controllers, created on first use after flag parsing.
var sharedArenaFetcher *source.Fetcher

// arenaFetcher returns the shared fetcher, creating it and adding it to mgr
// (a leader-election runnable) on the first call.
func arenaFetcher(mgr ctrl.Manager) (*source.Fetcher, error) {
	if sharedArenaFetcher != nil {
		return sharedArenaFetcher, nil
	}
	f := source.NewFetcher(source.FetcherOptions{
		Workers:        *arenaGitFetchWorkers,
		PerHost:        *arenaGitFetchPerHost,
		PerNamespace:   *arenaGitFetchPerNamespace,
		QueueSize:      *arenaGitFetchQueue,
		NamespaceQueue: *arenaGitFetchNamespaceQueue,
	})
	if err := mgr.Add(f); err != nil {
		return nil, err
	}
	sharedArenaFetcher = f
	return f, nil
}

// arenaConfig is the Arena controllers' shared configuration, from the
// flags (the operator-wide queue URL is added by the ArenaRun controller's
// setup, which reads its file). The ArenaJob controller runs on the real
// clock.
func arenaConfig() arenasetup.Config {
	return arenasetup.Config{
		Source: source.Config{
			ContentRoot: *workspaceContentPath, CredentialHosts: arenaGitHosts,
			FetchDir: *arenaGitFetchDir, MaxFetchBytes: *arenaGitMaxFetchBytes, MaxObjects: *arenaGitMaxObjects,
			MaxObjectBytes: *arenaGitMaxObjectBytes, MaxInflatedBytes: *arenaGitMaxInflatedBytes,
		},
		WorkerImage: arenaWorkerImage,
		License:     licenseStore,
	}
}
