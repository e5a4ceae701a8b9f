package main

import (
	"flag"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/cmd/omnia-operator/arenasetup"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source"
	"github.com/altairalabs/omnia/rules"
)

// arenaFlags are the enterprise Arena switch and the Arena controllers'
// shared settings. The Arena controllers (ArenaProject, ArenaJob, ArenaRun)
// are an enterprise feature and run only when --arena is set, as the app
// chart's enterprise.enabled (arenajob.md, top note). Without it the Arena
// CRDs are still installed and the webhook still judges Arena objects, but
// nothing reconciles them: an ArenaJob is admitted and left alone. `make
// run` sets it.
type arenaFlags struct {
	enabled bool

	// workspaceContentPath is where the workspace content volume is
	// mounted in the operator: <path>/<namespace>/ is a workspace's content
	// subtree, a hosted ArenaProject's repository is
	// arena/sources/<project> in it (arenajob.md names this flag).
	workspaceContentPath string

	// The bounds of the Arena git fetches (reconcile/arenaproject/source:
	// fetcher.go, packindex.go; docs/arena.md § Fetches).
	gitFetchDir            string
	gitMaxFetchBytes       int64
	gitMaxObjects          int
	gitMaxObjectBytes      int64
	gitMaxInflatedBytes    int64
	gitFetchWorkers        int
	gitFetchPerHost        int
	gitFetchPerNamespace   int
	gitFetchQueue          int
	gitFetchNamespaceQueue int

	// gitHosts are the hosts an external ArenaProject's spec.git.secretRef
	// credentials may be sent to (--arena-git-hosts, repeatable and
	// comma-separated; canonical host:port). Empty, the default: none, so
	// a project with a secretRef is Failed (CredentialsHostNotAllowed) and
	// its Secret is not read.
	gitHosts []string

	// run are the ArenaRun controller's own settings.
	run arenaRunFlags
}

func (f *arenaFlags) bind(fs *flag.FlagSet) {
	fs.BoolVar(&f.enabled, "arena", false, "run the Arena controllers (enterprise)")
	fs.StringVar(&f.workspaceContentPath, "workspace-content-path", "",
		"mount of the workspace content volume; a hosted ArenaProject's git repository is <path>/<namespace>/arena/sources/<project>. "+
			"Empty: hosted projects are Failed (ContentRootNotSet) and runs write their output to scratch space")
	fs.StringVar(&f.gitFetchDir, "arena-git-fetch-dir", "",
		"directory the Arena git fetches write into (one fresh directory per fetch, removed after; at most --arena-git-fetch-workers of them at once). Empty: the system temporary directory")
	fs.Int64Var(&f.gitMaxFetchBytes, "arena-git-max-fetch-bytes", source.DefaultMaxFetchBytes,
		"bytes one Arena git fetch may read from the server (refs and pack), and the pack it may write to disk")
	fs.IntVar(&f.gitMaxObjects, "arena-git-max-objects", source.DefaultMaxObjects,
		"objects one fetched pack may hold, checked from its header before any is read")
	fs.Int64Var(&f.gitMaxObjectBytes, "arena-git-max-object-bytes", source.DefaultMaxObjectBytes,
		"largest object the operator holds whole in memory (a commit, tree or tag, a delta's base or result), checked from the pack's declared sizes before it is inflated; whole blobs are streamed and bounded by the snapshot cap instead")
	fs.Int64Var(&f.gitMaxInflatedBytes, "arena-git-max-inflated-bytes", source.DefaultMaxInflatedBytes,
		"sum of the inflated sizes of every object of one fetched pack")
	fs.IntVar(&f.gitFetchWorkers, "arena-git-fetch-workers", source.DefaultFetchWorkers,
		"operator-wide cap on Arena git fetches (and snapshot exports) running at once, outside the reconcile workers")
	fs.IntVar(&f.gitFetchPerHost, "arena-git-fetch-per-host", source.DefaultFetchPerHost,
		"cap on Arena git fetches running against one host:port")
	fs.IntVar(&f.gitFetchPerNamespace, "arena-git-fetch-per-namespace", source.DefaultFetchPerNamespace,
		"cap on Arena git fetches running for the projects of one namespace")
	fs.IntVar(&f.gitFetchQueue, "arena-git-fetch-queue", source.DefaultFetchQueueSize,
		"Arena git fetches that may wait; beyond it a project says Fetching and asks again at its next requeue")
	fs.IntVar(&f.gitFetchNamespaceQueue, "arena-git-fetch-namespace-queue", source.DefaultFetchNamespaceQueue,
		"Arena git fetches of one namespace that may wait, so one tenant cannot fill the queue")
	fs.Func("arena-git-hosts",
		"comma-separated host or host:port list (host alone means port 443; repeatable) to which an external ArenaProject's "+
			"spec.git.secretRef credentials may be sent over https; default none: a project with a secretRef to any other URL "+
			"is Failed (CredentialsHostNotAllowed) and its Secret is not read",
		func(s string) error {
			hosts, err := rules.ParseCredentialHosts(s)
			f.gitHosts = append(f.gitHosts, hosts...)
			return err
		})
	f.run.bind(fs)
}

// arenaFetcher returns the operator's one Arena fetcher, creating it and
// adding it to mgr (a leader-election runnable) on the first call.
func (op *operator) arenaFetcher(mgr ctrl.Manager) (*source.Fetcher, error) {
	if op.fetcher != nil {
		return op.fetcher, nil
	}
	a := op.flags.arena
	f := source.NewFetcher(source.FetcherOptions{
		Workers:        a.gitFetchWorkers,
		PerHost:        a.gitFetchPerHost,
		PerNamespace:   a.gitFetchPerNamespace,
		QueueSize:      a.gitFetchQueue,
		NamespaceQueue: a.gitFetchNamespaceQueue,
	})
	if err := mgr.Add(f); err != nil {
		return nil, err
	}
	op.fetcher = f
	return f, nil
}

// arenaConfig is the Arena controllers' shared configuration, from the
// flags (the operator-wide queue URL is added by the ArenaRun controller's
// setup, which reads its file). The ArenaJob controller runs on the real
// clock.
func (op *operator) arenaConfig() arenasetup.Config {
	a := op.flags.arena
	return arenasetup.Config{
		Source: source.Config{
			ContentRoot: a.workspaceContentPath, CredentialHosts: a.gitHosts,
			FetchDir: a.gitFetchDir, MaxFetchBytes: a.gitMaxFetchBytes, MaxObjects: a.gitMaxObjects,
			MaxObjectBytes: a.gitMaxObjectBytes, MaxInflatedBytes: a.gitMaxInflatedBytes,
		},
		WorkerImage: a.run.workerImage,
		License:     op.license,
	}
}
